import Foundation
import Testing

/// `store import` and `seed` map a large array on several threads (`--jobs`): the store is the same.
@Suite struct ParallelImportTests {
    @Test func importingOnSeveralThreadsSavesWhatOneThreadSaves() throws {
        let folder = try StoreFixture.folder()
        let schema = folder.appendingPathComponent("items.yaml")
        try itemSchema.write(to: schema, atomically: true, encoding: .utf8)
        // 20,000 items (about 1.3 MB), then 20,000 more of which half update the first ones.
        let first = folder.appendingPathComponent("first.json"), second = folder.appendingPathComponent("second.json")
        try items(20_000).write(to: first, atomically: true, encoding: .utf8)
        try items(20_000, from: 10_000, batch: 2).write(to: second, atomically: true, encoding: .utf8)
        #expect(try first.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 > 1 << 20)
        var dumps: [[String]] = []
        for jobs in ["1", "2"] {
            let db = folder.appendingPathComponent("items-\(jobs).sqlite").path
            for body in [first, second] {
                let run = try Program.restmap(["store", "import", "--schema", schema.path, "--db", db, "--jobs", jobs, body.path])
                #expect(run.status == 0, "\(run.errors)")
            }
            dumps.append(try Program.sqlite(db, #"SELECT id, name, batch FROM "Item" ORDER BY rm_id"#))
        }
        // From standard input the body is read whole; from a file, in parts: the same store.
        let piped = folder.appendingPathComponent("items-piped.sqlite").path
        for body in [first, second] {
            let run = try Program.restmap(["store", "import", "--schema", schema.path, "--db", piped, "--jobs", "2", "-"],
                                          input: try Data(contentsOf: body))
            #expect(run.status == 0, "\(run.errors)")
        }
        dumps.append(try Program.sqlite(piped, #"SELECT id, name, batch FROM "Item" ORDER BY rm_id"#))
        // Seeded from the same two files (each read in parts as it is saved): the same store.
        let seeded = folder.appendingPathComponent("items-seeded.sqlite").path
        let seed = try Program.restmap(["seed", "--schema", schema.path, "--db", seeded, "--jobs", "2", first.path, second.path])
        #expect(seed.status == 0, "\(seed.errors)")
        #expect(seed.output.contains("Item: 30000"), "\(seed.output)")
        dumps.append(try Program.sqlite(seeded, #"SELECT id, name, batch FROM "Item" ORDER BY rm_id"#))
        #expect(dumps[0].count == 30_000)
        for dump in dumps.dropFirst() { #expect(dump == dumps[0]) }
        let refused = try Program.restmap(["store", "import", "--schema", schema.path, "--db", folder.appendingPathComponent("x.sqlite").path,
                                           "--jobs", "0", first.path])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("--jobs takes a positive number"))
    }
}

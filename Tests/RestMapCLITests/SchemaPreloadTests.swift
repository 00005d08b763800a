import Foundation
@testable import RestMapCLICore
import RestMapTestSupport
import Testing

/// `restmap map` loads its schema while the command line is parsed (`SchemaPreload`): the load is
/// used only when the parsed options name the same schema and plugin folders, so every way of
/// writing the command line maps and reports exactly as the plain one does.
@Suite("Loading the schema while the command line is parsed")
struct SchemaPreloadTests {
    @Test("The arguments are looked through for the last --schema and every --plugin-path, in both spellings, before a --")
    func request() {
        let request = SchemaPreload.Request(["--path", "/x", "--schema", "a.yaml", "--plugin-path=one", "--schema=b.yaml",
                                             "--plugin-path", "two", "--", "--schema", "c.yaml", "--plugin-path", "three"])
        #expect(request == SchemaPreload.Request(schema: "b.yaml", pluginPaths: ["one", "two"]))
        #expect(SchemaPreload.Request(["--path", "/x", "body.json"]) == nil)
        #expect(SchemaPreload.Request(["--schema"]) == nil, "a --schema without its value")
    }

    @Test("A load is taken only for the same schema and plugin folders, and only once; other commands load nothing early")
    func takenWhenTheSame() throws {
        let schema = CLI.repository.appendingPathComponent("Schemas/tasks.yaml").path
        SchemaPreload.begin(["validate", "--schema", schema])
        #expect(SchemaPreload.take(schema: schema, pluginPaths: []) == nil, "validate is not map")

        SchemaPreload.begin(["map", "--schema", schema, "--plugin-path", "/nowhere"])
        #expect(SchemaPreload.take(schema: schema, pluginPaths: []) == nil, "other plugin folders")
        #expect(SchemaPreload.take(schema: schema, pluginPaths: ["/nowhere"]) == nil, "already taken")

        SchemaPreload.begin(["map", "--path", "/task_list", "--schema=\(schema)", "body.json"])
        #expect(SchemaPreload.take(schema: schema + ".other", pluginPaths: []) == nil, "another schema")

        SchemaPreload.begin(["map", "--schema", schema])
        let loaded = try #require(SchemaPreload.take(schema: schema, pluginPaths: []))
        #expect(loaded.loaded.schema?.entities.contains { $0.name == "Task" } == true)
        #expect((try? loaded.mapper.get()) != nil)
    }

    @Test("Every spelling of the schema option maps the same records and reports the same diagnostics")
    func spellingsAgree() throws {
        let body = "Samples/github/starred.json"
        let plain = try CLI.run(["map", "--schema", "Schemas/github.yaml", "--path", "/users/octocat/starred", body])
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(plain.output.hasPrefix("[{\"$entity\":\"Repository\""), "\(plain.output.prefix(200))")
        let spellings: [[String]] = [
            ["map", "--path", "/users/octocat/starred", "--schema=Schemas/github.yaml", body],
            ["map", "--schema", "Schemas/tasks.yaml", "--schema", "Schemas/github.yaml", "--path", "/users/octocat/starred", body],
            ["map", "--plugin-path", "/nonexistent", "--schema", "Schemas/github.yaml", "--path", "/users/octocat/starred", body],
        ]
        for arguments in spellings {
            let run = try CLI.run(arguments)
            #expect(run.status == 0 && run.output == plain.output && run.errors == plain.errors, "\(arguments): \(run.errors)")
        }

        // A schema with an error: the same diagnostic, at the same place, however it is named.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-preload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("broken.yaml").path
        try "restmap: 1\nentities:\n  Task:\n    attributes:\n      id: { from: id, type: integr }\n"
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let reports = try [["--schema", broken], ["--schema=\(broken)"], ["--schema", "Schemas/github.yaml", "--schema", broken]].map {
            try CLI.run(["map"] + $0 + [body])
        }
        #expect(reports[0].status == 1 && reports[0].errors.contains("\(broken):5:"), "\(reports[0].errors)")
        #expect(reports.allSatisfy { $0.status == reports[0].status && $0.errors == reports[0].errors && $0.output.isEmpty })
        // A usage error still wins over the schema, as before.
        let usage = try CLI.run(["map", "--schema", broken, "--no-such-option", body])
        #expect(usage.status == 2 && usage.errors.contains("--no-such-option") && !usage.errors.contains(broken), "\(usage.errors)")
    }
}

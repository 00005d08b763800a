import Foundation
import RestMap
import Testing

/// A schema file edited while a `ReloadingMapper` serves it.
@Suite("Hot reload")
struct ReloadingTests {
    static func schema(attribute: String) -> String {
        """
        restmap: 1
        entities:
          Item:
            attributes: { id: id, \(attribute): \(attribute) }
        responses:
          - { entity: Item }
        """
    }

    let body = Response(path: "/", body: #"[{"id": 1, "name": "a", "title": "b"}]"#)

    func file() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("schema.yaml")
        try Self.schema(attribute: "name").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    func attributes(_ mapper: Mapper) throws -> [String] {
        let output = RecordWriter.ndjson(try mapper.map(body).records)
        return ["name", "title"].filter { output.contains("\"\($0)\"") }
    }

    @Test("A clean new version swaps in; one with errors is refused with its diagnostics while the old one serves; a mapper taken before a swap stays")
    func reload() throws {
        let file = try file()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let reloading = try ReloadingMapper(contentsOf: file.path)
        let before = reloading.current
        #expect(reloading.reload() == .unchanged)

        try "restmap: 1\nentities:\n  Item:\n    attributes: { id: { from: id, type: integr } }\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(reloading.reload() == .rejected)
        #expect(reloading.rejection?.description.contains("integr") == true)
        #expect(try attributes(reloading.current) == ["name"])
        #expect(reloading.version == 1)

        try Self.schema(attribute: "title").write(to: file, atomically: true, encoding: .utf8)
        #expect(reloading.reload() == .swapped(version: 2))
        #expect(reloading.rejection == nil)
        #expect(try attributes(reloading.current) == ["title"])
        #expect(try attributes(before) == ["name"])
    }

    @Test("Watching notices an edit by itself (waits bounded by 10 s)")
    func watching() throws {
        let file = try file()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let reloading = try ReloadingMapper(contentsOf: file.path)
        reloading.startWatching(every: 0.05)
        defer { reloading.stopWatching() }
        try Self.schema(attribute: "title").write(to: file, atomically: true, encoding: .utf8)
        let deadline = Date().addingTimeInterval(10)
        while reloading.version == 1, Date() < deadline { usleep(20_000) }
        #expect(reloading.version == 2)
        #expect(try attributes(reloading.current) == ["title"])
    }
}

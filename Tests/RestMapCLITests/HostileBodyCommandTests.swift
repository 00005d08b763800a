import Foundation
import Testing

/// Issue 11 through the built binary: a hostile body never crashes `restmap map`; it gets
/// records, an error naming where (exit 1), or the documented "No mappable" error (exit 1).
@Suite("restmap map on hostile bodies")
struct HostileBodyCommandTests {
    func run(keyPath: String, body: String) throws -> CLI.Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            restmap: 1
            entities:
              Item: { attributes: [id] }
            responses:
              - { keyPath: "\(keyPath)", entity: Item }
            """.write(to: folder.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        try body.write(to: folder.appendingPathComponent("b.json"), atomically: true, encoding: .utf8)
        return try CLI.run(["map", "--schema", "s.yaml", "b.json"], in: folder)
    }

    @Test(arguments: [("0.items", "[5]"), ("0.items", #"[{"a":1}]"#), ("items", #"[{"items": null}]"#),
                      ("items", "[5]"), ("items", "[{}]"), ("items", "[null]"), ("items", "[]")])
    func nothingMappableExitsOneWithTheDocumentedError(_ keyPath: String, _ body: String) throws {
        let run = try run(keyPath: keyPath, body: body)
        #expect(run.status == 1, "\(body): \(run.errors)")
        #expect(run.errors.contains("No mappable object representations were found at the key paths searched: \(keyPath)"))
        #expect(run.output.isEmpty)
    }

    @Test func badElementsAreReportedWhileGoodRecordsPrint() throws {
        let run = try run(keyPath: "items", body: #"{"items": [{"id": 1}, 7, null]}"#)
        #expect(run.status == 1)
        #expect(run.output.contains(#"{"$entity":"Item","id":1}"#))
        #expect(run.errors.contains("items[1]: Item: expected an object representation, found number 7"))
    }

    @Test func anEmptyCollectionIsSuccess() throws {
        let run = try run(keyPath: "items", body: #"{"items": []}"#)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}

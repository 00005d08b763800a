import Foundation
import RestMapTestSupport
import Testing

/// A number default is read as mapping reads a number string: the validator refuses what mapping would.
@Suite struct NumberDefaultTests {
    @Test("A default that is not one decimal number is a schema error at its position", arguments: ["0x10", "inf", ".nan", "1_000"])
    func notADecimalNumber(_ value: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-default-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = folder.appendingPathComponent("schema.yaml")
        try "restmap: 1\nentities:\n  Item:\n    attributes:\n      count: { from: count, type: integer, default: \(value) }\nresponses: [{ entity: Item }]\n"
            .write(to: schema, atomically: true, encoding: .utf8)
        let run = try CLI.run(["validate", schema.path])
        #expect(run.status == 1)
        #expect(run.output.contains("schema.yaml:5:53: error: the default '\(value)' of an integer attribute is not a number"), "\(run.output)")
    }

    @Test("Decimal defaults validate and map")
    func decimalDefaults() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-default-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = folder.appendingPathComponent("schema.yaml")
        try """
            restmap: 1
            entities:
              Item:
                attributes:
                  name: name
                  count: { from: count, type: integer, default: -16 }
                  ratio: { from: ratio, type: number, default: 2.5e3 }
                  price: { from: price, type: decimal, default: "0.10" }
            responses: [{ entity: Item }]
            """.write(to: schema, atomically: true, encoding: .utf8)
        #expect(try CLI.run(["validate", schema.path]).status == 0)
        let mapped = try CLI.run(["map", "--schema", schema.path, "-"], input: Data(#"[{"name": "a"}]"#.utf8))
        #expect(mapped.status == 0, "\(mapped.errors)")
        #expect(mapped.output.contains(#""count":-16"#) && mapped.output.contains(#""ratio":2500"#) && mapped.output.contains(#""price":0.1"#),
                "\(mapped.output)")
    }
}

import Foundation
import RestMapTestSupport
import Testing

/// File names are user input: any name a shell can pass is read, never a crash.
@Suite struct FilePathTests {
    @Test("A schema named by one character, relative to the working folder, is read", arguments: ["S", "./S"])
    func oneCharacterSchemaName(_ name: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("restmap: 1\nentities:\n  Item: { attributes: [name] }\nresponses: [{ entity: Item }]\n".utf8)
            .write(to: folder.appendingPathComponent("S"))
        let validated = try CLI.run(["validate", name], in: folder)
        #expect(validated.status == 0, "\(validated.errors)")
        let mapped = try CLI.run(["map", "--schema", name, "-"], in: folder, input: Data(#"{"name": "one"}"#.utf8))
        #expect(mapped.status == 0, "\(mapped.errors)")
        #expect(mapped.output.contains(#""name":"one""#))
    }
}

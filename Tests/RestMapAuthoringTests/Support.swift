import Foundation

/// Paths of the repository, for tests that read its schemas, samples and test files.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// One entry of Samples/index.json.
    struct Sample: Decodable, CustomStringConvertible {
        var story: String
        var schema: String
        var body: String
        var method: String
        var path: String
        var status: Int
        var description: String { body }
    }

    static let samples: [Sample] = {
        let data = FileManager.default.contents(atPath: path("Samples/index.json"))!
        return try! JSONDecoder().decode([Sample].self, from: data)
    }()

    /// A temporary file holding `text`, removed by the caller.
    static func temporaryFile(_ text: String, name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-authoring-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}

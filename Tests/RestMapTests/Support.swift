import Foundation
import RestMap
import RestMapPlugins
import RestMapSchema
import Testing

/// Paths and loaders shared by the interpreter tests.
enum Fixture {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A mapper for a schema under `Schemas/`.
    static func mapper(schema name: String, plugins: PluginRegistry = PluginRegistry()) throws -> Mapper {
        let loaded = Schema.load(contentsOf: root.appendingPathComponent("Schemas/\(name)").path)
        guard let schema = loaded.schema else { throw Failure(description: loaded.diagnostics.map(\.description).joined(separator: "\n")) }
        return try Mapper(schema: schema, plugins: plugins)
    }

    /// A mapper for a schema written inline.
    static func mapper(yaml: String, plugins: PluginRegistry = PluginRegistry()) throws -> Mapper {
        let loaded = Schema.load(bytes: Array(yaml.utf8), file: "inline.yaml")
        guard let schema = loaded.schema else { throw Failure(description: loaded.diagnostics.map(\.description).joined(separator: "\n")) }
        return try Mapper(schema: schema, plugins: plugins)
    }

    /// The bytes of a file under `Samples/`.
    static func sample(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("Samples/\(path)")))
    }
}

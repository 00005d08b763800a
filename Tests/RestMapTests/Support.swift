import Foundation
import RestMap
import RestMapPluginLoader
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
        let loaded = Schema.validate(contentsOf: root.appendingPathComponent("Schemas/\(name)").path)
        guard let schema = loaded.schema else { throw Failure(description: loaded.diagnostics.map(\.description).joined(separator: "\n")) }
        return try Mapper(schema: schema, plugins: plugins)
    }

    /// A mapper for a schema under `Schemas/`, loaded as `restmap` loads it: the plugins it names
    /// come from the build folder (the test binary's), loaded from disk.
    static func mapperLoadingPlugins(_ name: String) throws -> Mapper {
        try Schema.load(contentsOf: root.appendingPathComponent("Schemas/\(name)").path,
                        options: SchemaLoadOptions(pluginProvider: PluginSearchPath(schemaDirectory: nil))).mapper()
    }

    /// A mapper for a schema written inline.
    static func mapper(yaml: String, plugins: PluginRegistry = PluginRegistry()) throws -> Mapper {
        let loaded = Schema.validate(bytes: Array(yaml.utf8), file: "inline.yaml")
        guard let schema = loaded.schema else { throw Failure(description: loaded.diagnostics.map(\.description).joined(separator: "\n")) }
        return try Mapper(schema: schema, plugins: plugins)
    }

    /// The bytes of a file under `Samples/`.
    static func sample(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("Samples/\(path)")))
    }
}

/// Runs `body` with a descriptor open on a temporary regular file holding `contents`; the file
/// is closed and removed afterwards.
func withTemporaryFile<Result>(_ contents: [UInt8], _ body: (Int32) throws -> Result) throws -> Result {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-body-\(UUID().uuidString)").path
    try Data(contents).write(to: URL(fileURLWithPath: path))
    let descriptor = open(path, O_RDONLY)
    defer {
        close(descriptor)
        unlink(path)
    }
    #expect(descriptor >= 0)
    return try body(descriptor)
}

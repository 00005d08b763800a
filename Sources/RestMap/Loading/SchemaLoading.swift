import Foundation
import RestMapPlugins
import RestMapSchema

/// A schema with the plugins it names loaded, and every diagnostic found on the way.
public struct PreparedSchema: Sendable {
    /// The schema, present only when there is no error.
    public var schema: Schema?
    /// The built-in transformers, the plugins given in process and those the schema named.
    public var plugins: PluginRegistry
    /// Schema and plugin-loading problems, sorted by position.
    public var diagnostics: [Diagnostic]
}

/// A schema that could not be prepared for mapping.
public struct SchemaLoadError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension PreparedSchema {
    /// Loads a schema file, loads the plugins its `plugins:` names (from the schema's folder,
    /// `pluginPaths`, `RESTMAP_PLUGIN_PATH` and the installed plugin folder) unless `plugins`
    /// already holds them, and validates transformer names and arguments against them.
    public static func load(contentsOf path: String, pluginPaths: [String] = [], plugins: PluginRegistry = PluginRegistry()) -> PreparedSchema {
        let searchPath = PluginSearchPath(schemaDirectory: (path as NSString).deletingLastPathComponent.nonEmpty ?? ".",
                                          pluginPaths: pluginPaths)
        return prepare(SchemaLoader().load(contentsOf: path), file: path, searchPath: searchPath, plugins: plugins)
    }

    /// Prepares a document already loaded (a schema embedded in another file, a schema an editor
    /// holds): loads the plugins it names from `searchPath` unless `plugins` already holds them,
    /// then validates it, transformer names and arguments included.
    public static func prepare(_ loaded: SchemaLoader.Loaded, file path: String, searchPath: PluginSearchPath,
                               plugins: PluginRegistry = PluginRegistry()) -> PreparedSchema {
        var registry = plugins
        registry.registerBuiltins()
        var pluginDiagnostics: [Diagnostic] = []
        if let root = loaded.root {
            for node in root["plugins"]?.sequence ?? [] {
                guard let name = node.scalarText, registry.plugins.allSatisfy({ $0.name != name }) else { continue }
                do { _ = try registry.load(named: name, searchPath: searchPath) } catch {
                    pluginDiagnostics.append(.error("cannot load plugin '\(name)': \(error)", at: node.textLocation))
                }
            }
        }
        let validated = Schema.validate(loaded, file: path, options: SchemaValidationOptions(transformers: registry.catalog))
        let all = (validated.diagnostics + pluginDiagnostics).sortedByPosition()
        return PreparedSchema(schema: all.containsErrors ? nil : validated.schema, plugins: registry, diagnostics: all)
    }
}

extension Mapper {
    /// Loads a schema file with its plugins and compiles it.
    ///
    /// - Throws: `SchemaLoadError` with every diagnostic when the schema has errors or a plugin
    ///   it names cannot be loaded.
    public init(contentsOf path: String, pluginPaths: [String] = [], plugins: PluginRegistry = PluginRegistry()) throws(SchemaLoadError) {
        let prepared = PreparedSchema.load(contentsOf: path, pluginPaths: pluginPaths, plugins: plugins)
        guard let schema = prepared.schema else { throw SchemaLoadError(diagnostics: prepared.diagnostics) }
        do { try self.init(schema: schema, plugins: prepared.plugins) } catch {
            throw SchemaLoadError(diagnostics: [.error(error.message, at: error.location ?? SourceLocation(file: path, line: 1, column: 1))])
        }
    }
}

extension PluginRegistry {
    /// Registers the built-in transformers unless they already are.
    mutating func registerBuiltins() {
        guard plugins.allSatisfy({ $0.name != BuiltinTransformers.name }) else { return }
        // Built-in names are unqualified and unique among themselves, so adding them cannot fail.
        try? register(BuiltinTransformers.self)
    }

    /// What the validator needs to know of the registered transformers.
    public var catalog: TransformerCatalog {
        var transformers: [String: [TransformerCatalog.Argument]] = [:]
        for plugin in plugins {
            for definition in plugin.transformers {
                let name = plugin.name.isEmpty ? definition.name : "\(plugin.name).\(definition.name)"
                transformers[name] = definition.arguments.map {
                    TransformerCatalog.Argument(name: $0.name, kind: $0.kind.rawValue, isRequired: $0.isRequired)
                }
            }
        }
        return TransformerCatalog(transformers: transformers, loadedPlugins: Set(plugins.map(\.name)))
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

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
    /// The steps "did you mean" suggestions took (see `LoadedSchema.suggestionSteps`).
    public var suggestionSteps = 0
    /// Whether validation stopped early because its cancellation was cancelled.
    public var wasCancelled = false
}

/// A schema that could not be prepared for mapping.
public struct SchemaLoadError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension PreparedSchema {
    /// Loads a schema file, loads the plugins its `plugins:` names unless `plugins` already holds
    /// them, and validates transformer names and arguments against them.
    ///
    /// Plugins come only from folders the user chose (`pluginPaths`, `RESTMAP_PLUGIN_PATH`, the
    /// installed plugin folder), first-party ones only from the binary's folder or the installed
    /// one: never from the schema's folder (see `PluginSearchPath`). A first-party library lying
    /// elsewhere is reported as a warning at the plugin's name.
    public static func load(contentsOf path: String, pluginPaths: [String] = [], plugins: PluginRegistry = PluginRegistry()) -> PreparedSchema {
        let searchPath = PluginSearchPath(schemaDirectory: FilePaths.directory(of: path).nonEmpty ?? ".",
                                          pluginPaths: pluginPaths)
        return prepare(SchemaLoader().load(contentsOf: path), file: path, searchPath: searchPath, plugins: plugins)
    }

    /// Prepares a document already loaded (a schema embedded in another file, a schema an editor
    /// holds): loads the plugins it names from `searchPath` unless `plugins` already holds them,
    /// then validates it, transformer names and arguments included. A `cancellation` cancelled
    /// meanwhile stops validation early (an editor's analysis of text it has replaced).
    public static func prepare(_ loaded: SchemaLoader.Loaded, file path: String, searchPath: PluginSearchPath,
                               plugins: PluginRegistry = PluginRegistry(),
                               cancellation: ValidationCancellation? = nil) -> PreparedSchema {
        var registry = plugins
        registry.registerBuiltins()
        var pluginDiagnostics: [Diagnostic] = []
        if let root = loaded.root {
            // Names that are not identifiers are the validator's errors; they never reach the file system.
            for node in root["plugins"]?.sequence ?? [] {
                guard let name = node.stringValue, PluginSearchPath.isValidName(name) else { continue }
                if registry.plugins.allSatisfy({ $0.name != name }) {
                    do { _ = try registry.load(named: name, searchPath: searchPath) } catch {
                        pluginDiagnostics.append(.error("cannot load plugin '\(name)': \(error)", at: node.textLocation))
                        continue
                    }
                }
                for refusal in searchPath.refusals(forPlugin: name) where PluginSearchPath.reservedNames.contains(name) {
                    pluginDiagnostics.append(.warning("ignored \(refusal.path): \(refusal.reason)", at: node.textLocation))
                }
            }
        }
        var options = SchemaValidationOptions(transformers: registry.catalog)
        options.cancellation = cancellation
        let validated = Schema.validate(loaded, file: path, options: options)
        let all = (validated.diagnostics + pluginDiagnostics).sortedByPosition()
        return PreparedSchema(schema: all.containsErrors ? nil : validated.schema, plugins: registry, diagnostics: all,
                              suggestionSteps: validated.suggestionSteps, wasCancelled: validated.wasCancelled)
    }
}

extension Mapper {
    /// Loads a schema file with its plugins and compiles it.
    ///
    /// - Throws: `SchemaLoadError` with every diagnostic when the schema has errors or a plugin
    ///   it names cannot be loaded.
    public init(contentsOf path: String, pluginPaths: [String] = [], plugins: PluginRegistry = PluginRegistry()) throws(SchemaLoadError) {
        try self.init(prepared: PreparedSchema.load(contentsOf: path, pluginPaths: pluginPaths, plugins: plugins))
    }

    /// Compiles a prepared schema (whose warnings the caller may report first).
    ///
    /// - Throws: `SchemaLoadError` with every diagnostic when the schema has errors.
    public init(prepared: PreparedSchema) throws(SchemaLoadError) {
        guard let schema = prepared.schema else { throw SchemaLoadError(diagnostics: prepared.diagnostics) }
        do { try self.init(schema: schema, plugins: prepared.plugins) } catch {
            throw SchemaLoadError(diagnostics: [.error(error.message, at: error.location ?? SourceLocation(file: schema.file, line: 1, column: 1))])
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

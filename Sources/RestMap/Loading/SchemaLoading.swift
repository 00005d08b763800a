import FoundationEssentials
import RestMapPlugins
import RestMapSchema

/// A schema file read, with the plugins it names registered, validated against them: what
/// `Schema.load` returns, and what `Mapper(_:)` compiles.
public struct LoadedSchema: Sendable {
    /// The schema, present only when there is no error.
    public var schema: Schema?
    /// The built-in transformers, the plugins registered in process and those the schema named.
    public var plugins: PluginRegistry
    /// Every problem found (the document, the schema's semantics, its plugins), sorted by position.
    public var diagnostics: [Diagnostic]
    /// The steps "did you mean" suggestions took (at most `SchemaLoadOptions.suggestionLimit`).
    public var suggestionSteps = 0
    /// Whether validation stopped early because `SchemaLoadOptions.cancellation` was cancelled:
    /// the diagnostics are then incomplete.
    public var wasCancelled = false

    /// A mapper for the schema.
    /// - Throws: `SchemaLoadError` with every diagnostic when the schema has errors.
    public func mapper() throws(SchemaLoadError) -> Mapper {
        try Mapper(self)
    }
}

/// How `Schema.load` reads a schema and where the plugins it names come from.
public struct SchemaLoadOptions: Sendable {
    /// Plugins registered in process (`PluginRegistry.register`); the built-in transformers are
    /// always added.
    public var plugins: PluginRegistry
    /// Where a plugin the schema names and `plugins` lacks comes from: `PluginSearchPath`
    /// (module `RestMapPluginLoader`) loads it from trusted folders on disk. Without a provider such
    /// a plugin is an error at its name.
    public var pluginProvider: (any PluginProvider)?
    /// The document limits: file size, nesting depth, nodes once aliases are expanded.
    public var limits = SchemaLoader()
    /// The most steps "did you mean" suggestions may take in one load (see `SuggestionBudget`).
    public var suggestionLimit = SuggestionBudget.defaultLimit
    /// When set and cancelled, validation stops early (`LoadedSchema.wasCancelled`): an editor
    /// cancels the analysis of text it has replaced.
    public var cancellation: ValidationCancellation?

    /// Options with in-process plugins and, optionally, a provider of the others.
    public init(plugins: PluginRegistry = PluginRegistry(), pluginProvider: (any PluginProvider)? = nil) {
        self.plugins = plugins
        self.pluginProvider = pluginProvider
    }
}

/// A schema that could not be loaded: every diagnostic, errors among them.
public struct SchemaLoadError: Error, Sendable, CustomStringConvertible {
    /// Every problem found, sorted by position.
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension Schema {
    /// Reads the schema file at `path`, registers the plugins its `plugins:` names (from
    /// `options.plugins`, else from `options.pluginProvider`), and validates it, transformer names
    /// and arguments included. This is the one way to load a schema; `try loaded.mapper()` compiles it.
    ///
    /// Loading never runs code from a place the schema's author controls: plugins come only from
    /// the registry or the provider, and `PluginSearchPath` never searches the schema's folder.
    public static func load(contentsOf path: String, options: SchemaLoadOptions = SchemaLoadOptions()) -> LoadedSchema {
        load(options.limits.load(contentsOf: path), file: path, options: options)
    }

    /// Loads a schema held in memory; `file` names it in diagnostics (and is the folder plugin
    /// errors point at).
    public static func load(bytes: [UInt8], file: String, options: SchemaLoadOptions = SchemaLoadOptions()) -> LoadedSchema {
        load(options.limits.load(bytes: bytes, file: file), file: file, options: options)
    }

    /// Loads a document already parsed (a schema embedded in another file, a schema an editor
    /// holds and also reads as a tree).
    package static func load(_ document: SchemaDocument, file path: String, options: SchemaLoadOptions) -> LoadedSchema {
        var registry = options.plugins
        registry.registerBuiltins()
        var pluginDiagnostics: [Diagnostic] = []
        for node in document.root?["plugins"]?.sequence ?? [] {
            // Names that are not identifiers are the validator's errors; they never reach a provider.
            guard let name = node.stringValue, PluginNames.isValid(name),
                  registry.plugins.allSatisfy({ $0.name != name }) else { continue }
            do {
                guard let provider = options.pluginProvider else { throw PluginError.notRegistered(name: name) }
                let warnings = try provider.provide(plugin: name, forSchemaAt: path, into: &registry)
                pluginDiagnostics += warnings.map { .warning($0, at: node.textLocation) }
            } catch {
                pluginDiagnostics.append(.error("cannot load plugin '\(name)': \(error)", at: node.textLocation))
            }
        }
        var validation = SchemaValidationOptions(transformers: registry.catalog)
        validation.loader = options.limits
        validation.suggestionLimit = options.suggestionLimit
        validation.cancellation = options.cancellation
        let validated = Schema.validate(document, file: path, options: validation)
        let all = (validated.diagnostics + pluginDiagnostics).sortedByPosition()
        return LoadedSchema(schema: all.containsErrors ? nil : validated.schema, plugins: registry, diagnostics: all,
                            suggestionSteps: validated.suggestionSteps, wasCancelled: validated.wasCancelled)
    }
}

extension Mapper {
    /// Compiles a loaded schema (whose warnings the caller may report first).
    ///
    /// - Throws: `SchemaLoadError` with every diagnostic when the schema has errors.
    public init(_ loaded: LoadedSchema) throws(SchemaLoadError) {
        guard let schema = loaded.schema else { throw SchemaLoadError(diagnostics: loaded.diagnostics) }
        do { try self.init(schema: schema, plugins: loaded.plugins) } catch {
            throw SchemaLoadError(diagnostics: [.error(error.message, at: error.location ?? SourceLocation(file: schema.file, line: 1, column: 1))])
        }
    }

    /// Compiles a loaded schema.
    @available(*, deprecated, renamed: "init(_:)")
    public init(prepared: LoadedSchema) throws(SchemaLoadError) {
        try self.init(prepared)
    }
}

/// The former name of `LoadedSchema`.
@available(*, deprecated, renamed: "LoadedSchema")
public typealias PreparedSchema = LoadedSchema

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

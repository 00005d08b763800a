import FoundationEssentials
import RestMap
import RestMapAuthoring
import RestMapPluginLoader
import RestMapPlugins
import RestMapSchema

/// What the server knows of one document: its parsed tree (when it parses) and diagnostics.
struct SchemaAnalysis {
    var root: SchemaNode?
    var diagnostics: [Diagnostic]
    /// The grammar of the document: a schema file's, or a schema test file's (`restmapTest:`).
    var grammar: Shape = RestMapGrammar.schema
    /// The schema whose entities completion and definition use: the document itself, or the
    /// schema a test file names (a path next to it, or inline).
    var schemaRoot: SchemaNode?
    /// The steps "did you mean" suggestions took.
    var suggestionSteps = 0
    /// Whether the analysis stopped early (a newer text arrived): its diagnostics are incomplete.
    var wasCancelled = false

    /// Parses and validates a document; plugins it names come from `plugins` (loaded by the server
    /// from the configured folders only). A plugin that is not loaded is reported, never searched for.
    static func analyze(_ document: TextDocument, plugins: PluginStore, cancellation: ValidationCancellation? = nil) -> SchemaAnalysis {
        let file = document.path
        let loaded = SchemaLoader().load(bytes: Array(document.text.utf8), file: file)
        if let root = loaded.root, root["restmapTest"] != nil {
            // A schema test file: checked against its own grammar (`restmap test` runs it).
            let diagnostics = loaded.diagnostics + SchemaTestGrammar.file.diagnostics(for: root, context: "the test file")
            var schemaRoot = root["schema"]
            if let path = schemaRoot?.scalarText {
                let directory = FilePaths.directory(of: file)
                schemaRoot = SchemaLoader().load(contentsOf: path.hasPrefix("/") ? path : directory + "/" + path).root
            }
            return SchemaAnalysis(root: root, diagnostics: diagnostics.sortedByPosition(), grammar: SchemaTestGrammar.file,
                                  schemaRoot: schemaRoot)
        }
        var diagnostics: [Diagnostic] = []
        var registry = PluginRegistry()
        for node in loaded.root?["plugins"]?.sequence ?? [] {
            guard let name = node.scalarText else { continue }
            switch plugins.plugin(named: name) {
            case .success(let info): try? registry.add(info)
            case .failure(let reason): diagnostics.append(.warning(reason, at: node.textLocation))
            }
        }
        // No plugin provider: every plugin the schema names was either added above or is reported.
        var options = SchemaLoadOptions(plugins: registry)
        options.cancellation = cancellation
        let prepared = Schema.load(loaded, file: file, options: options)
        let own = prepared.diagnostics.filter { !$0.message.hasPrefix("cannot load plugin ") }
        return SchemaAnalysis(root: loaded.root, diagnostics: (own + diagnostics).sortedByPosition(), schemaRoot: loaded.root,
                              suggestionSteps: prepared.suggestionSteps, wasCancelled: prepared.wasCancelled)
    }

    /// Entity names declared in the document, with the positions of their keys.
    var entities: [(name: String, location: SourceLocation)] {
        (schemaRoot?["entities"]?.mapping ?? []).compactMap { pair in pair.key.scalarText.map { ($0, pair.key.location) } }
    }

    /// The attribute names of an entity (map form keys or list form items), each once: a list
    /// may name one twice, and completion offers it once.
    func attributes(of entity: String) -> [String] {
        guard let node = schemaRoot?["entities"]?[entity]?["attributes"] else { return [] }
        let names = node.mapping.map { $0.compactMap(\.key.scalarText) } ?? (node.sequence ?? []).compactMap(\.scalarText)
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// The plugin names of `plugins:`, each once.
    var pluginNames: [String] {
        var seen = Set<String>()
        return (root?["plugins"]?.sequence ?? []).compactMap(\.scalarText).filter { seen.insert($0).inserted }
    }
}

/// Plugins the language server may load: the first-party ones (`dates`, `ids`, `csv`) from the
/// folder of the `restmap` binary or its installed plugin folder, as trusted as the binary itself
/// (as for `restmap validate` and `map`); third-party ones only from the folders configured in the
/// editor's settings (`pluginPaths`), never from the workspace or the schema's folder by themselves.
final class PluginStore {
    /// Where the first-party plugins come from.
    let firstPartyDirectories: [String]

    init(firstPartyDirectories: [String] = PluginSearchPath.installationDirectories(of: PluginSearchPath.executableDirectory)) {
        self.firstPartyDirectories = firstPartyDirectories
    }

    private(set) var directories: [String] = []
    private var loaded: [String: Result<PluginRegistry.PluginInfo, PluginStoreError>] = [:]

    struct PluginStoreError: Error {
        var reason: String
    }

    /// Sets the configured folders; plugins load again from them on demand.
    func configure(_ directories: [String]) {
        guard directories != self.directories else { return }
        self.directories = directories
        loaded = [:]
    }

    enum Lookup {
        case success(PluginRegistry.PluginInfo)
        case failure(String)
    }

    /// A plugin by name, or why it is not available.
    func plugin(named name: String) -> Lookup {
        if loaded[name] == nil {
            if PluginNames.reserved.contains(name) {
                var registry = PluginRegistry()
                do {
                    loaded[name] = .success(try registry.load(named: name, searchPath: PluginSearchPath([], firstPartyDirectories: firstPartyDirectories)))
                } catch {
                    loaded[name] = .failure(PluginStoreError(reason: "first-party plugin '\(name)' is not loaded: \(error)"))
                }
            } else if directories.isEmpty {
                loaded[name] = .failure(PluginStoreError(reason:
                    "plugin '\(name)' is not loaded: the language server loads plugins only from the folders in the "
                        + "'restmap.pluginPaths' setting, and none is configured"))
            } else {
                var registry = PluginRegistry()
                do {
                    loaded[name] = .success(try registry.load(named: name, searchPath: PluginSearchPath(directories)))
                } catch {
                    loaded[name] = .failure(PluginStoreError(reason: "plugin '\(name)' is not loaded from the configured 'restmap.pluginPaths': \(error)"))
                }
            }
        }
        switch loaded[name]! {
        case .success(let info): return .success(info)
        case .failure(let error): return .failure(error.reason)
        }
    }
}

import RestMap
import Synchronization

/// The schema of `restmap map`, loaded with its plugins on a thread of its own while the command
/// line is parsed, instead of after it.
///
/// Parsing the command line costs about 3 ms, mostly the Swift runtime's first look-ups of the
/// option types' protocol conformances; loading a schema and its plugins about 1.5 ms. Both come
/// before any mapping thread can start, so on a machine with many cores they bound how much
/// faster a body maps (Docs/Pipelines.md). The arguments are looked through for `--schema` and
/// `--plugin-path` only to start early: the load is used only when the parsed options name the
/// same schema file and plugin folders (`PluginOptions.mapper(for:)`), and is thrown away
/// otherwise, so what the command does never depends on this look.
package enum SchemaPreload {
    /// Starts loading the schema `arguments` (the process's, after the executable) name, when
    /// they are those of `restmap map` and name one.
    package static func begin(_ arguments: [String]) {
        guard arguments.first == "map", let request = Request(arguments.dropFirst()) else { return }
        let pending = Pending(request)
        guard SystemThread.start({ pending.load() }) else { return }
        current.withLock { $0 = pending }
    }

    /// The schema loaded early, when it is `schema` with `pluginPaths` (waiting for its load to
    /// end); `nil` when none was, or another. Taken once.
    static func take(schema: String, pluginPaths: [String]) -> Loaded? {
        guard let pending = current.withLock({ $0.take() }),
              pending.request == Request(schema: schema, pluginPaths: pluginPaths) else { return nil }
        return pending.wait()
    }

    /// A schema loaded and compiled: its diagnostics (warnings to print) and its mapper.
    struct Loaded: Sendable {
        var loaded: LoadedSchema
        var mapper: Result<Mapper, SchemaLoadError>
    }

    /// What to load: the schema file and the plugin folders, as the options give them.
    struct Request: Equatable, Sendable {
        var schema: String
        var pluginPaths: [String]

        init(schema: String, pluginPaths: [String]) {
            self.schema = schema
            self.pluginPaths = pluginPaths
        }

        /// The last `--schema` and every `--plugin-path`, in both spellings (`--name value`,
        /// `--name=value`), before a `--`; `nil` without a schema.
        init?(_ arguments: ArraySlice<String>) {
            var schema: String?
            var pluginPaths: [String] = []
            var remaining = arguments.makeIterator()
            while let argument = remaining.next(), argument != "--" {
                switch argument {
                case "--schema": schema = remaining.next()
                case "--plugin-path": remaining.next().map { pluginPaths.append($0) }
                default:
                    if argument.hasPrefix("--schema=") { schema = String(argument.dropFirst("--schema=".count)) }
                    if argument.hasPrefix("--plugin-path=") { pluginPaths.append(String(argument.dropFirst("--plugin-path=".count))) }
                }
            }
            guard let schema else { return nil }
            self.init(schema: schema, pluginPaths: pluginPaths)
        }
    }

    /// A load under way on its own thread.
    private final class Pending: @unchecked Sendable {
        let request: Request
        private let condition = ConditionLock()
        /// Set once, by the loading thread (guarded by `condition`).
        private var result: Loaded?

        init(_ request: Request) {
            self.request = request
        }

        func load() {
            var options = PluginOptions()
            options.pluginPaths = request.pluginPaths
            let loaded = Schema.load(contentsOf: request.schema, options: options.loadOptions)
            let mapper = Result { () throws(SchemaLoadError) in try loaded.mapper() }
            condition.withLock {
                result = Loaded(loaded: loaded, mapper: mapper)
                condition.broadcast()
            }
        }

        func wait() -> Loaded {
            condition.withLock {
                while result == nil { condition.wait() }
                return result!
            }
        }
    }

    private static let current = Mutex<Pending?>(nil)
}

import Dispatch
import FoundationEssentials
import RestMapSchema
import Synchronization

/// A `Mapper` that follows its schema file, for long-running embedders.
///
/// Each new version of the file is loaded and validated; it replaces the current mapper only
/// when it has no errors. A mapping takes `current` once and finishes on it, so a swap never
/// changes a mapping in flight. A version with errors is not used: the previous mapper keeps
/// serving and `rejection` holds the diagnostics until a clean version arrives.
public final class ReloadingMapper: Sendable {
    /// The schema file followed.
    public let path: String
    private let options: SchemaLoadOptions
    private let state: Mutex<State>

    private struct State {
        var mapper: Mapper
        var version = 1
        var rejection: SchemaLoadError?
        /// The bytes of the last version looked at (clean or not), to notice the next change.
        var lastSeen: Data?
        /// Checks the file while watching (`startWatching`).
        var timer: WatchTimer?
    }

    /// Loads the first version (as `Schema.load` does, with `options` for this and every later
    /// version); throws when it has errors (there is nothing to serve yet).
    public init(contentsOf path: String, options: SchemaLoadOptions = SchemaLoadOptions()) throws(SchemaLoadError) {
        self.path = path
        self.options = options
        let contents = FileManager.default.contents(atPath: path)
        state = Mutex(State(mapper: try Schema.load(contentsOf: path, options: options).mapper(), lastSeen: contents))
    }

    deinit { state.withLock { $0.timer?.source.cancel() } }

    /// The mapper to use now; take it once per mapping.
    public var current: Mapper { state.withLock { $0.mapper } }

    /// 1 for the first version, +1 for each version swapped in.
    public var version: Int { state.withLock { $0.version } }

    /// Why the file's latest version is not used (`nil` when the current mapper is the latest).
    public var rejection: SchemaLoadError? { state.withLock { $0.rejection } }

    /// What a reload did.
    public enum Outcome: Sendable, Equatable {
        /// The file is unchanged since it was last looked at.
        case unchanged
        /// A clean new version is now `current`.
        case swapped(version: Int)
        /// The new version has errors (see `rejection`); the previous mapper still serves.
        case rejected
    }

    /// Looks at the file now and swaps in a clean new version.
    @discardableResult
    public func reload() -> Outcome {
        let contents = FileManager.default.contents(atPath: path)
        if state.withLock({ $0.lastSeen == contents }) { return .unchanged }
        let loaded = Result { () throws(SchemaLoadError) in try Schema.load(contentsOf: path, options: options).mapper() }
        return state.withLock { state in
            state.lastSeen = contents
            switch loaded {
            case .success(let mapper):
                state.mapper = mapper
                state.version += 1
                state.rejection = nil
                return .swapped(version: state.version)
            case .failure(let error):
                state.rejection = error
                return .rejected
            }
        }
    }

    /// Checks the file every `interval` seconds on a background queue, calling `onChange` with
    /// each outcome other than `.unchanged`. Stops with `stopWatching()` or when released.
    public func startWatching(every interval: Double = 0.25, onChange: @escaping @Sendable (Outcome) -> Void = { _ in }) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "restmap.reload"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in
            guard let outcome = self?.reload(), outcome != .unchanged else { return }
            onChange(outcome)
        }
        timer.resume()
        let watch = WatchTimer(timer)
        state.withLock { state in
            state.timer?.source.cancel()
            state.timer = watch
        }
    }

    public func stopWatching() {
        state.withLock { state in
            state.timer?.source.cancel()
            state.timer = nil
        }
    }
}

/// The timer of a watching `ReloadingMapper`. Dispatch sources may be cancelled from any thread.
private final class WatchTimer: @unchecked Sendable {
    let source: any DispatchSourceTimer

    init(_ source: any DispatchSourceTimer) {
        self.source = source
    }
}

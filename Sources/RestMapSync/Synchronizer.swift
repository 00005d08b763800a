import Foundation
import RestMap
import RestMapClient
import RestMapSchema
import RestMapStore

/// What a sync run does, as it happens.
public enum SyncEvent: Sendable {
    /// A resource starts, with the number of (resource, parent) runs it makes.
    case resourceStarted(resource: String, parents: Int)
    /// A page was saved with its state, in one transaction.
    case pageSaved(resource: String, parent: String, page: Int, records: Int)
    /// Something the user should know that is not a failure (a state that starts over).
    case note(String)
    /// A resource ended: every parent synced, or some failed (the others are still committed).
    case resourceFinished(SyncResourceReport)
}

/// How one resource's run ended.
public struct SyncResourceReport: Sendable, Codable, Hashable {
    public var resource: String
    /// The (resource, parent) runs made.
    public var parents: Int
    public var pages: Int
    /// Records kept (with `filter: client`, only those newer than the state).
    public var records: Int
    /// One message per (resource, parent) that failed.
    public var failures: [String]
    /// Whether a failure was a transport failure (no usable answer).
    public var transportFailed: Bool
}

/// What `Synchronizer.run` is asked to do.
public struct SyncOptions: Sendable {
    /// Resources to sync, by name; empty for all (parents are not added: each named one fans out
    /// over the parent records already stored).
    public var resources: [String] = []
    /// Re-read everything from the cursor's start, ignoring the state; the state is then set anew.
    public var fullRefresh = false
    /// At most this many pages per (resource, parent) run; the run then stops and resumes later.
    public var maxPages: Int?
    /// Parents of one resource synced at once.
    public var concurrency = 1

    public init(resources: [String] = [], fullRefresh: Bool = false, maxPages: Int? = nil, concurrency: Int = 1) {
        self.resources = resources
        self.fullRefresh = fullRefresh
        self.maxPages = maxPages
        self.concurrency = concurrency
    }
}

/// Keeps a store in step with a service, resource by resource, as the schema's `sync:` says
/// (Docs/Sync.md). Every page is saved together with the state that follows it, so a run killed
/// at any moment goes on where it stopped, and no record is stored twice (identity upserts).
public struct Synchronizer: Sendable {
    public let client: RestClient
    public let store: RecordStore

    public init(client: RestClient, store: RecordStore) {
        self.client = client
        self.store = store
    }

    var schema: Schema { client.mapper.schema }

    /// Runs the sync; the stream ends when every resource ran, and throws only for a problem that
    /// stops the whole run (an unknown resource name, a store error).
    public func run(_ options: SyncOptions = SyncOptions()) -> AsyncThrowingStream<SyncEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await runAll(options) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The resources to run, parents first.
    func resources(named names: [String]) throws -> [SyncResource] {
        guard let ordered = SyncOrder.sorted(schema.sync) else { throw SyncError("the sync resources depend on each other in a cycle") }
        guard !names.isEmpty else { return ordered }
        for name in names where !ordered.contains(where: { $0.name == name }) {
            throw SyncError("no sync resource named '\(name)'; the schema has: \(ordered.map(\.name).joined(separator: ", "))")
        }
        return ordered.filter { names.contains($0.name) }
    }

    private func runAll(_ options: SyncOptions, _ emit: @escaping @Sendable (SyncEvent) -> Void) async throws {
        for resource in try resources(named: options.resources) {
            try Task.checkCancellation()
            var parents = try await parentRuns(of: resource)
            emit(.resourceStarted(resource: resource.name, parents: parents.count))
            var report = SyncResourceReport(resource: resource.name, parents: parents.count, pages: 0, records: 0,
                                            failures: [], transportFailed: false)
            // A resource over its own entity (folders in folders) goes down level by level: the
            // records each level stored are the next level's parents, up to `depth` levels.
            let levels = resource.parent?.entity.value == resource.entity.value ? resource.parent?.depth ?? 1 : 1
            var visited = Set<String>()
            for level in 1...levels {
                if level > 1 {
                    parents = try await parentRuns(of: resource).filter { !visited.contains($0.key) }
                    if parents.isEmpty { break }
                    report.parents += parents.count
                }
                visited.formUnion(parents.map(\.key))
                try await runParents(parents, of: resource, options: options, into: &report, emit)
            }
            report.failures.sort()
            emit(.resourceFinished(report))
        }
    }

    /// Runs the parents of one resource, up to `concurrency` at once (the store serializes the saves).
    private func runParents(_ parents: [ParentRun], of resource: SyncResource, options: SyncOptions,
                            into report: inout SyncResourceReport, _ emit: @escaping @Sendable (SyncEvent) -> Void) async throws {
        try await withThrowingTaskGroup(of: ParentOutcome.self) { group in
            var pending = parents.makeIterator()
            func startNext() {
                guard let parent = pending.next() else { return }
                group.addTask { try await self.outcome(resource, parent: parent, options: options, emit) }
            }
            for _ in 0..<max(1, options.concurrency) { startNext() }
            for try await outcome in group {
                report.pages += outcome.pages
                report.records += outcome.records
                if let failure = outcome.failure {
                    report.failures.append(failure.message)
                    report.transportFailed = report.transportFailed || failure.isTransport
                }
                startNext()
            }
        }
    }

    /// How one (resource, parent) run ended.
    struct ParentOutcome: Sendable {
        var pages = 0
        var records = 0
        var failure: (message: String, isTransport: Bool)?
    }

    /// Runs one (resource, parent) under its lock in the store, so that one process at a time
    /// syncs it (another waits, then goes on from the state it left); a client error is its
    /// failure (recorded in its state), not the run's.
    private func outcome(_ resource: SyncResource, parent: ParentRun, options: SyncOptions,
                         _ emit: @escaping @Sendable (SyncEvent) -> Void) async throws -> ParentOutcome {
        let label = "\(resource.name)\(parent.key.isEmpty ? "" : " [\(parent.key)]")"
        return try await store.withLock(SyncKey.key(resource: resource.name, parent: parent.key),
                                        whenBusy: { emit(.note("\(label): another sync of it is running; waiting for it to end")) }) {
            do {
                let (pages, records) = try await runOne(resource, parent: parent, options: options, emit)
                return ParentOutcome(pages: pages, records: records)
            } catch let error as ClientError {
                try await recordFailure(resource, parent: parent, message: error.description)
                return ParentOutcome(failure: ("\(label): \(error)", error.exitStatus == 3))
            } catch let error as SyncError {
                try await recordFailure(resource, parent: parent, message: error.description)
                return ParentOutcome(failure: (error.description, false))
            } catch let error as CheckpointConflict {
                // Only a writer that does not take the lock gets here (an older restmap): its
                // state stands, and this run's page was not saved.
                return ParentOutcome(failure: ("\(label): \(error); run the sync again", false))
            }
        }
    }

    /// One run per parent record stored (every one, not only those that just changed); one run
    /// without parameters for a resource without fan-out.
    func parentRuns(of resource: SyncResource) async throws -> [ParentRun] {
        guard let parent = resource.parent, let route = schema.routes.first(where: { $0.name == resource.route.value }) else {
            return [ParentRun(key: "", parameters: [:])]
        }
        guard let entity = schema.entities.first(where: { $0.name == parent.entity.value }) else { return [] }
        let identity = entity.identifiedBy.map(\.value)
        let records = try await store.records(StoreQuery(entity: entity.name, order: identity.map { ($0, true) }, depth: 0))
        return records.map { record in
            var parameters: [String: String] = [:]
            for name in route.pattern.parameterNames {
                parameters[name] = Router.text(record[parent.parameters[name]?.value ?? name].value) ?? ""
            }
            let key = identity.map { "\($0)=\(Router.text(record[$0].value) ?? "")" }.joined(separator: ",")
            return ParentRun(key: key, parameters: parameters)
        }
    }

    struct ParentRun: Sendable {
        var key: String
        var parameters: [String: String]
    }

    /// Fetches, filters and saves the pages of one (resource, parent), each with its state:
    /// one range of the cursor, or each date window of it in turn.
    private func runOne(_ resource: SyncResource, parent: ParentRun, options: SyncOptions,
                        _ emit: @escaping @Sendable (SyncEvent) -> Void) async throws -> (pages: Int, records: Int) {
        let key = SyncKey.key(resource: resource.name, parent: parent.key)
        let signature = SyncState.signature(of: resource.cursor)
        let stored = try await store.checkpoint(forKey: key)
        var state = try stored.map { try Self.decode($0.value) } ?? SyncState(cursorSignature: signature)
        let label = "\(resource.name)\(parent.key.isEmpty ? "" : " [\(parent.key)]")"
        if state.cursorSignature != signature {
            emit(.note("\(label): the cursor changed in the schema; its state starts over"))
            state = SyncState(cursorSignature: signature)
        }
        if options.fullRefresh { state.resume = nil }
        if state.resume == nil {
            // A new run: counts start again; the state it reads from is the high-water mark.
            state.records = 0
            state.pages = 0
            state.runNewest = nil
        }
        var run = PageRun(resource: resource, parent: parent, key: key, label: label, fullRefresh: options.fullRefresh,
                          maxPages: options.maxPages, baseline: options.fullRefresh ? nil : state.highWater, stored: .unchanged(stored))
        guard let cursor = resource.cursor, cursor.filter == .server, let parameter = cursor.parameter else {
            try await runPages(&run, query: [:], state: &state, last: true, emit)
            return (run.pages, run.kept)
        }
        let from = run.baseline?.moved(back: cursor.lookback) ?? cursor.start.map { Self.cursorValue(parsing: $0, like: nil) }
        guard let window = cursor.window, let endParameter = cursor.endParameter else {
            try await runPages(&run, query: from.map { [parameter: $0.description] } ?? [:], state: &state, last: true, emit)
            return (run.pages, run.kept)
        }
        // Date windows [start, start + window) up to now; a window interrupted goes on from its
        // resume point, and the state moves to each window's end once it is complete.
        guard case .date(var start)? = from else {
            throw SyncError("\(label): date windows need a date to start from: give the cursor a 'start'")
        }
        let now = Date()
        if state.resume != nil {
            let end = state.windowEnd ?? now
            try await runPages(&run, query: [:], state: &state, last: end >= now, completing: .date(end), emit)
            start = max(start, end)
        }
        while start < now {
            let end = min(start.addingTimeInterval(Double(window)), now)
            state.windowEnd = end
            try await runPages(&run, query: [parameter: SyncCursorValue.date(start).description, endParameter: SyncCursorValue.date(end).description],
                               state: &state, last: end >= now, completing: .date(end), emit)
            start = end
            if run.stopped { break }
        }
        return (run.pages, run.kept)
    }

    /// The pages of one range of one (resource, parent) run.
    struct PageRun {
        let resource: SyncResource
        let parent: ParentRun
        let key: String
        let label: String
        let fullRefresh: Bool
        let maxPages: Int?
        /// The state the run reads from (`nil` in a full refresh): with `filter: client`, the
        /// records kept are those newer than it.
        let baseline: SyncCursorValue?
        /// The state this run last read or wrote: each page's state replaces exactly it.
        var stored: StoreCheckpoint.Expected
        var pages = 0
        var kept = 0
        /// The identities of every record read, for the full refresh's sweep.
        var seen: [[Value]] = []
        /// A page limit stopped the run: it goes on next time.
        var stopped = false
    }

    private func recordFailure(_ resource: SyncResource, parent: ParentRun, message: String) async throws {
        let key = SyncKey.key(resource: resource.name, parent: parent.key)
        let stored = try await store.checkpoint(forKey: key)
        var state = try stored.map { try Self.decode($0.value) } ?? SyncState(cursorSignature: SyncState.signature(of: resource.cursor))
        state.lastError = message
        state.lastRun = Date()
        try await store.setCheckpoints([StoreCheckpoint(key: key, value: try Self.encode(state), expected: .unchanged(stored))])
    }

    static func decode(_ text: String) throws -> SyncState {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(SyncState.self, from: Data(text.utf8))
    }

    static func encode(_ state: SyncState) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(state), as: UTF8.self)
    }


    // MARK: Status and reset

    /// The state of every (resource, parent) run so far, by resource then parent.
    public func status() async throws -> [SyncStatus] {
        try await store.checkpoints(withPrefix: SyncKey.prefix).compactMap { checkpoint in
            guard let (resource, parent) = SyncKey.parts(of: checkpoint.key) else { return nil }
            return SyncStatus(resource: resource, parent: parent, state: try Self.decode(checkpoint.value))
        }
    }

    /// Forgets a resource's state (of one parent, or of all), or sets its high-water mark to
    /// `value`; returns how many (resource, parent) states changed. Each state changes under its
    /// lock: a sync of it in progress ends first.
    @discardableResult
    public func reset(resource name: String, parent: String? = nil, to value: String? = nil) async throws -> Int {
        guard let resource = schema.sync.first(where: { $0.name == name }) else {
            throw SyncError("no sync resource named '\(name)'; the schema has: \(schema.sync.map(\.name).joined(separator: ", "))")
        }
        // One parent's state by its exact key (accountID=1 is a prefix of accountID=10), or all of
        // the resource's; a state that no longer decodes can be reset too.
        let exact = parent.map { SyncKey.key(resource: name, parent: $0) }
        let states = try await store.checkpoints(withPrefix: SyncKey.resourcePrefix(name)).filter { exact == nil || $0.key == exact }
        var keys = states.map(\.key)
        if keys.isEmpty, let exact, value != nil { keys = [exact] }
        let example = states.lazy.compactMap { try? Self.decode($0.value).highWater }.first
        let cursorValue = value.map { Self.cursorValue(parsing: $0, like: example) }
        var changed = 0
        for key in keys {
            changed += try await store.withLock(key) {
                guard let cursorValue else { return try await store.removeCheckpoint(forKey: key) }
                let stored = try await store.checkpoint(forKey: key)
                var state = stored.flatMap { try? Self.decode($0.value) } ?? SyncState(cursorSignature: SyncState.signature(of: resource.cursor))
                state.highWater = cursorValue
                state.resume = nil
                state.runNewest = nil
                try await store.setCheckpoints([StoreCheckpoint(key: key, value: try Self.encode(state), expected: .unchanged(stored))])
                return 1
            }
        }
        return changed
    }

    /// A cursor value from text: of the kind of `example` when there is one, else a date when it
    /// reads as ISO 8601, an integer when it reads as one, else text.
    static func cursorValue(parsing text: String, like example: SyncCursorValue?) -> SyncCursorValue {
        let date = try? Date(text, strategy: Date.ISO8601FormatStyle())
        switch example {
        case .date?: if let date { return .date(date) }
        case .integer?: if let number = Int64(text) { return .integer(number) }
        case .text?: return .text(text)
        case nil: break
        }
        if let date { return .date(date) }
        if let number = Int64(text) { return .integer(number) }
        return .text(text)
    }
}

/// A sync that cannot run: an unknown resource, a cycle.
public struct SyncError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

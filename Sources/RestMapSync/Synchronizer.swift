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

    public init(resources: [String] = [], fullRefresh: Bool = false, maxPages: Int? = nil) {
        self.resources = resources
        self.fullRefresh = fullRefresh
        self.maxPages = maxPages
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

    private func runAll(_ options: SyncOptions, _ emit: (SyncEvent) -> Void) async throws {
        for resource in try resources(named: options.resources) {
            try Task.checkCancellation()
            let parents = try await parentRuns(of: resource)
            emit(.resourceStarted(resource: resource.name, parents: parents.count))
            var report = SyncResourceReport(resource: resource.name, parents: parents.count, pages: 0, records: 0,
                                            failures: [], transportFailed: false)
            for parent in parents {
                do {
                    let (pages, records) = try await runOne(resource, parent: parent, options: options, emit)
                    report.pages += pages
                    report.records += records
                } catch let error as ClientError {
                    report.failures.append("\(resource.name)\(parent.key.isEmpty ? "" : " [\(parent.key)]"): \(error)")
                    report.transportFailed = report.transportFailed || error.exitStatus == 3
                    try await recordFailure(resource, parent: parent, message: error.description)
                }
            }
            emit(.resourceFinished(report))
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
                parameters[name] = Self.text(record[parent.parameters[name]?.value ?? name].value)
            }
            let key = identity.map { "\($0)=\(Self.text(record[$0].value))" }.joined(separator: ",")
            return ParentRun(key: key, parameters: parameters)
        }
    }

    struct ParentRun {
        var key: String
        var parameters: [String: String]
    }

    /// Fetches, filters and saves the pages of one (resource, parent), each with its state.
    private func runOne(_ resource: SyncResource, parent: ParentRun, options: SyncOptions,
                        _ emit: (SyncEvent) -> Void) async throws -> (pages: Int, records: Int) {
        let key = SyncKey.key(resource: resource.name, parent: parent.key)
        let signature = SyncState.signature(of: resource.cursor)
        var state = try await loadState(key) ?? SyncState(cursorSignature: signature)
        if state.cursorSignature != signature {
            emit(.note("\(resource.name)\(parent.key.isEmpty ? "" : " [\(parent.key)]"): the cursor changed in the schema; its state starts over"))
            state = SyncState(cursorSignature: signature)
        }
        if options.fullRefresh {
            state.resume = nil
            state.runNewest = nil
        }
        let cursor = resource.cursor
        let resume = state.resume
        if resume == nil {
            // A new run: counts start again; the state it reads from is the high-water mark.
            state.records = 0
            state.pages = 0
            state.runNewest = nil
        }
        let baseline: SyncCursorValue? = options.fullRefresh ? nil : state.highWater
        var query: [String: String] = [:]
        if let cursor, cursor.filter == .server, let parameter = cursor.parameter {
            if let baseline {
                query[parameter] = baseline.moved(back: cursor.lookback).description
            } else if let start = cursor.start {
                query[parameter] = start
            }
        }
        var pages = 0, kept = 0
        let sequence = client.pages(route: resource.route.value, parameters: parent.parameters, query: resume == nil ? query : [:],
                                    maxPages: options.maxPages, resumingAt: resume)
        for try await page in sequence {
            try Task.checkCancellation()
            var records = page.records.filter { $0.entity == resource.entity.value }
            if let cursor, cursor.filter == .client, let baseline {
                records = records.filter { record in
                    SyncCursorValue(record[cursor.attribute.value].value).map { $0 > baseline } ?? true
                }
            }
            if let cursor {
                let newest = records.compactMap { SyncCursorValue($0[cursor.attribute.value].value) }.max()
                state.runNewest = [state.runNewest, newest].compactMap { $0 }.max()
            }
            pages += 1
            kept += records.count
            state.pages += 1
            state.records += records.count
            state.lastError = nil
            if let next = page.nextURL {
                // More pages follow (also when a page limit stops this run): go on there next time.
                state.resume = PageResumePoint(url: next, number: page.number + 1)
                if cursor?.ordered == true, let newest = state.runNewest {
                    state.highWater = max(state.highWater ?? newest, newest)
                }
            } else {
                // The last page (or a stop): the run is over; the high-water mark moves now.
                state.resume = nil
                if let newest = state.runNewest, page.stopReason?.isIncomplete != true {
                    state.highWater = options.fullRefresh ? newest : max(state.highWater ?? newest, newest)
                }
                state.runNewest = nil
                state.stopReason = page.stopReason?.description
                state.lastRun = Date()
            }
            let checkpoint = StoreCheckpoint(key: key, value: try Self.encode(state))
            let response = Response(method: "GET", path: page.response.url, status: page.response.status.code, body: [])
            let keep = records.isEmpty && cursor?.filter == .client ? nil : page.response.result
            if let keep {
                // A sync response is never "the whole answer": the store's orphan rules do not run on it.
                try await store.save(keep, of: response, isCompletePage: false, checkpoints: [checkpoint])
            } else {
                try await store.setCheckpoints([checkpoint])
            }
            emit(.pageSaved(resource: resource.name, parent: parent.key, page: page.number, records: records.count))
        }
        return (pages, kept)
    }

    private func recordFailure(_ resource: SyncResource, parent: ParentRun, message: String) async throws {
        let key = SyncKey.key(resource: resource.name, parent: parent.key)
        guard var state = try await loadState(key) ?? Optional(SyncState(cursorSignature: SyncState.signature(of: resource.cursor))) else { return }
        state.lastError = message
        state.lastRun = Date()
        try await store.setCheckpoints([StoreCheckpoint(key: key, value: try Self.encode(state))])
    }

    private func loadState(_ key: String) async throws -> SyncState? {
        guard let checkpoint = try await store.checkpoints(withPrefix: key).first(where: { $0.key == key }) else { return nil }
        return try Self.decode(checkpoint.value)
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

    /// A value as a route parameter or a parent key.
    static func text(_ value: Value?) -> String {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        case .decimal(let number)?: "\(number)"
        case .date(let date)?: SyncCursorValue.format(date)
        case .bool(let flag)?: flag ? "true" : "false"
        default: ""
        }
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
    /// `value`; returns how many (resource, parent) states changed.
    @discardableResult
    public func reset(resource name: String, parent: String? = nil, to value: String? = nil) async throws -> Int {
        guard let resource = schema.sync.first(where: { $0.name == name }) else {
            throw SyncError("no sync resource named '\(name)'; the schema has: \(schema.sync.map(\.name).joined(separator: ", "))")
        }
        let prefix = parent.map { SyncKey.key(resource: name, parent: $0) } ?? SyncKey.resourcePrefix(name)
        guard let value else { return try await store.removeCheckpoints(withPrefix: prefix) }
        var states = try await status().filter { $0.resource == name && (parent == nil || $0.parent == parent) }
        if states.isEmpty, let parent { states = [SyncStatus(resource: name, parent: parent, state: SyncState(cursorSignature: SyncState.signature(of: resource.cursor)))] }
        let cursorValue = Self.cursorValue(parsing: value, like: states.first?.state.highWater)
        let checkpoints = try states.map { status in
            var state = status.state
            state.highWater = cursorValue
            state.resume = nil
            state.runNewest = nil
            return StoreCheckpoint(key: SyncKey.key(resource: name, parent: status.parent), value: try Self.encode(state))
        }
        try await store.setCheckpoints(checkpoints)
        return checkpoints.count
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

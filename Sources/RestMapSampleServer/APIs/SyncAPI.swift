import Hummingbird
import RestMapDates
import RestMapPluginKit

/// A changing dataset for sync engines (`/sync/…`): accounts, their events (filterable by
/// `updated_at`, for incremental and windowed syncs) and their notes (not filterable, for full
/// refreshes), changed on demand by `POST /sync/_mutate` under a logical clock. Deterministic:
/// the same options and the same requests give the same answers.
actor SyncAPI {
    /// The dataset's size, from `--sync-accounts`, `--sync-events` and `--sync-notes`.
    struct Size: Sendable {
        var accounts: Int
        /// Events per account.
        var events: Int
        /// Notes per account.
        var notes: Int
    }

    /// 2026-01-01T00:00:00Z: the logical clock at start and after a reset.
    static let clockStart: Int64 = 1_767_225_600
    /// 2025-12-01T00:00:00Z: the generated events and notes are spread after it, before `clockStart`.
    static let spreadStart: Int64 = 1_764_547_200
    /// How far one mutation advances the clock.
    static let clockStep: Int64 = 3_600
    static let defaultPageSize = 100
    static let maximumPageSize = 1_000
    /// The most events one mutation inserts.
    static let maximumInserts = 100_000

    static let accountsPattern = "/sync/accounts"
    static let eventsPattern = "/sync/accounts/:accountID/events"
    static let notesPattern = "/sync/accounts/:accountID/notes"
    static let changesPattern = "/sync/accounts/:accountID/changes"
    static let rootFoldersPattern = "/sync/folders"
    static let subfoldersPattern = "/sync/folders/:folderID/folders"

    /// A folder tree that does not change: 3 root folders, each folder above the third level
    /// with 2 subfolders (21 in all), ids in breadth-first order.
    static let folders: [(id: Int, parentID: Int?, json: [UInt8])] = {
        var folders: [(id: Int, parentID: Int?, level: Int)] = (1...3).map { ($0, nil, 1) }
        var index = 0
        while index < folders.count {
            let folder = folders[index]
            if folder.level < 3 {
                for _ in 0..<2 { folders.append((folders.count + 1, folder.id, folder.level + 1)) }
            }
            index += 1
        }
        return folders.map { folder in
            let json = JSONValue.object([
                "id": .integer(folder.id), "parent_id": folder.parentID.map { .integer($0) } ?? .null,
                "name": .string("Folder \(folder.id)"), "updated_at": .string(ISO8601Text.string(from: Double(clockStart))),
            ]).bytes
            return (folder.id, folder.parentID, json)
        }
    }()

    /// An event or a note, with its JSON written once.
    private struct Item {
        var id: Int
        var accountID: Int
        var updatedAt: Int64
        /// The event's title or the note's body.
        var text: String
        var json: [UInt8]

        init(id: Int, accountID: Int, updatedAt: Int64, text: String, textKey: String) {
            self.id = id
            self.accountID = accountID
            self.updatedAt = updatedAt
            self.text = text
            json = JSONValue.object([
                "id": .integer(id), "account_id": .integer(accountID), textKey: .string(text),
                "updated_at": .string(ISO8601Text.string(from: Double(updatedAt))),
            ]).bytes
        }

        /// Whether it sorts before `other` by (`updated_at`, `id`).
        func precedes(_ other: Item) -> Bool {
            (updatedAt, id) < (other.updatedAt, other.id)
        }
    }

    private struct Account {
        var json: [UInt8]
        /// Sorted by (`updated_at`, `id`).
        var events: [Item]
        /// Sorted by `id`.
        var notes: [Item]
    }

    private let size: Size
    private var clock = SyncAPI.clockStart
    /// Index `i` holds account `i + 1`.
    private var accounts: [Account]
    /// The account (1-based) of every current event, by id.
    private var eventAccounts: [Int: Int]
    private var nextEventID: Int
    /// GET requests per route pattern since start or reset.
    private var requestCounts: [String: Int] = [:]

    init(size: Size) {
        self.size = size
        (accounts, eventAccounts) = Self.generate(size)
        nextEventID = size.accounts * size.events + 1
    }

    /// The dataset at start: events and notes numbered across accounts in account order, item k
    /// (1-based) updated at `spreadStart` + k steps, a step being 60 s, or less when the items
    /// would otherwise reach `clockStart`.
    private static func generate(_ size: Size) -> (accounts: [Account], eventAccounts: [Int: Int]) {
        let eventStep = Self.spreadStep(count: size.accounts * size.events)
        let noteStep = Self.spreadStep(count: size.accounts * size.notes)
        let accounts = (1..<size.accounts + 1).map { accountID in
            let events = (1..<size.events + 1).map { index in
                let id = (accountID - 1) * size.events + index
                return Item(id: id, accountID: accountID, updatedAt: Self.spreadStart + Int64(id) * eventStep, text: "Event \(id)", textKey: "title")
            }
            let notes = (1..<size.notes + 1).map { index in
                let id = (accountID - 1) * size.notes + index
                return Item(id: id, accountID: accountID, updatedAt: Self.spreadStart + Int64(id) * noteStep, text: "Note \(id)", textKey: "body")
            }
            let json = JSONValue.object([
                "id": .integer(accountID), "name": .string("Account \(accountID)"),
                "updated_at": .string(ISO8601Text.string(from: Double(Self.clockStart))),
            ]).bytes
            return Account(json: json, events: events, notes: notes)
        }
        var eventAccounts: [Int: Int] = [:]
        eventAccounts.reserveCapacity(size.accounts * size.events)
        for account in accounts {
            for event in account.events { eventAccounts[event.id] = event.accountID }
        }
        return (accounts, eventAccounts)
    }

    /// Seconds between generated items: 60, or what fits `count` items between `spreadStart` and `clockStart`.
    private static func spreadStep(count: Int) -> Int64 {
        min(60, (clockStart - spreadStart) / Int64(count + 1))
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        router.on(.get, RouterPath(Self.accountsPattern)) { request in await self.accountList(request) }
        router.on(.get, RouterPath(Self.eventsPattern)) { request in await self.events(request) }
        router.on(.get, RouterPath(Self.notesPattern)) { request in await self.notes(request) }
        router.on(.post, "/sync/_mutate") { request in await self.mutate(request) }
        router.on(.post, "/sync/_reset") { _ in await self.reset() }
        router.on(.get, "/sync/_stats") { _ in await self.stats() }
        router.on(.get, RouterPath(Self.changesPattern)) { request in await self.changes(request) }
        router.on(.get, RouterPath(Self.rootFoldersPattern)) { _ in await self.subfolders(of: nil) }
        router.on(.get, RouterPath(Self.subfoldersPattern)) { request in
            guard let id = Int(request.parameter("folderID")), Self.folders.contains(where: { $0.id == id }) else {
                return Reply.error(.notFound, "error", "Folder not found")
            }
            return await self.subfolders(of: id)
        }
    }

    private static let accountNotFound = Reply.error(.notFound, "error", "Account not found")

    private func count(_ pattern: String) {
        requestCounts[pattern, default: 0] += 1
    }

    /// The account a path names; `nil` when there is none.
    private func accountIndex(_ request: RouteRequest) -> Int? {
        guard let id = Int(request.parameter("accountID")), id >= 1, id <= accounts.count else { return nil }
        return id - 1
    }

    /// One page of `elements` (their JSON) with the `Link` header.
    private static func page(_ elements: some Collection<[UInt8]>, request: RouteRequest) -> Reply {
        guard let paging = Paging.read(request, defaultSize: defaultPageSize, maximumSize: maximumPageSize, total: elements.count) else {
            return Paging.invalid
        }
        let start = elements.index(elements.startIndex, offsetBy: paging.range.lowerBound)
        let end = elements.index(start, offsetBy: paging.range.count)
        return .jsonArray(elements[start..<end]).adding(.link, paging.linkHeader(for: request))
    }

    /// Every account, or one page of them when the request names `page` or `per_page`.
    private func accountList(_ request: RouteRequest) -> Reply {
        count(Self.accountsPattern)
        let all = accounts.lazy.map(\.json)
        guard request.query("page") != nil || request.query("per_page") != nil else { return .jsonArray(all) }
        return Self.page(all, request: request)
    }

    private func events(_ request: RouteRequest) -> Reply {
        count(Self.eventsPattern)
        guard let index = accountIndex(request) else { return Self.accountNotFound }
        let events = accounts[index].events
        var range = events.indices
        do throws(ReplyError) {
            if let since = try Self.bound(request, "since") {
                range = max(range.lowerBound, Self.firstIndex(events) { Double($0.updatedAt) >= since })..<range.upperBound
            }
            if let after = try Self.bound(request, "updated_after") {
                range = max(range.lowerBound, Self.firstIndex(events) { Double($0.updatedAt) > after })..<range.upperBound
            }
            if let until = try Self.bound(request, "until") {
                let end = Self.firstIndex(events) { Double($0.updatedAt) >= until }
                range = range.lowerBound..<max(range.lowerBound, min(range.upperBound, end))
            }
        } catch {
            return error.reply
        }
        return Self.page(events[range].lazy.map(\.json), request: request)
    }

    /// The first index whose event satisfies `isAtOrPast`, which holds from some index on; the end when none does.
    private static func firstIndex(_ events: [Item], where isAtOrPast: (Item) -> Bool) -> Int {
        var low = 0
        var high = events.count
        while low < high {
            let middle = (low + high) / 2
            if isAtOrPast(events[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// A date filter of the query in seconds since 1970; `nil` when absent.
    private static func bound(_ request: RouteRequest, _ name: String) throws(ReplyError) -> Double? {
        guard let text = request.query(name) else { return nil }
        guard let seconds = ISO8601Parse.seconds(text) else {
            throw ReplyError(.error(.badRequest, "error", "\(name): expected an ISO 8601 date-time such as 2026-01-01T00:00:00Z, got '\(text)'"))
        }
        return seconds
    }

    /// Every note of the account by id; date filters are ignored.
    private func notes(_ request: RouteRequest) -> Reply {
        count(Self.notesPattern)
        guard let index = accountIndex(request) else { return Self.accountNotFound }
        return Self.page(accounts[index].notes.lazy.map(\.json), request: request)
    }

    /// A non-negative integer query parameter, `fallback` when absent.
    private static func amount(_ request: RouteRequest, _ name: String, default fallback: Int = 0, maximum: Int) throws(ReplyError) -> Int {
        guard let text = request.query(name) else { return fallback }
        guard let value = Int(text), (0...maximum).contains(value) else {
            throw ReplyError(.error(.badRequest, "error", "\(name): expected an integer from 0 to \(maximum), got '\(text)'"))
        }
        return value
    }

    /// Advances the clock by an hour, then updates, inserts and deletes events (and touches one
    /// note per account with `notes=1`), as the query asks.
    private func mutate(_ request: RouteRequest) -> Reply {
        let updates: Int, inserts: Int, deletes: Int, touchNotes: Bool
        do throws(ReplyError) {
            updates = try Self.amount(request, "updates", maximum: eventAccounts.count)
            deletes = try Self.amount(request, "deletes", maximum: eventAccounts.count)
            inserts = try Self.amount(request, "inserts", maximum: accounts.isEmpty ? 0 : Self.maximumInserts)
            touchNotes = try Self.amount(request, "notes", maximum: 1) == 1
        } catch {
            return error.reply
        }
        guard updates + deletes <= eventAccounts.count else {
            return .error(.badRequest, "error", "updates + deletes (\(updates + deletes)) exceed the \(eventAccounts.count) events")
        }
        let seedText = request.query("seed") ?? "0"
        guard let seed = UInt64(seedText) else {
            return .error(.badRequest, "error", "seed: expected a non-negative integer, got '\(seedText)'")
        }
        var random = SplitMix64(seed: seed)
        clock += Self.clockStep

        // The first `updates + deletes` of a seeded shuffle of the current event ids.
        var ids = eventAccounts.keys.sorted()
        for index in 0..<(updates + deletes) {
            ids.swapAt(index, index + random.below(ids.count - index))
        }
        let updated = ids[0..<updates].sorted()
        let deleted = ids[updates..<(updates + deletes)].sorted()

        var changed = Set<Int>()
        for id in updated + deleted {
            changed.insert(eventAccounts[id]!)
        }
        let removed = Set(updated + deleted)
        for accountID in changed {
            accounts[accountID - 1].events.removeAll { removed.contains($0.id) }
        }
        // Everything written now is at the clock, after every earlier time: appending in id order keeps the order.
        for id in updated {
            let accountID = eventAccounts[id]!
            accounts[accountID - 1].events.append(Item(id: id, accountID: accountID, updatedAt: clock, text: "Event \(id) (edited)", textKey: "title"))
        }
        for id in deleted {
            eventAccounts[id] = nil
        }
        var inserted: [Int] = []
        for index in 0..<inserts {
            let accountID = index % accounts.count + 1
            let id = nextEventID
            nextEventID += 1
            accounts[accountID - 1].events.append(Item(id: id, accountID: accountID, updatedAt: clock, text: "Event \(id)", textKey: "title"))
            eventAccounts[id] = accountID
            inserted.append(id)
        }
        var touched: [Int] = []
        if touchNotes {
            for index in accounts.indices where !accounts[index].notes.isEmpty {
                let noteIndex = random.below(accounts[index].notes.count)
                let note = accounts[index].notes[noteIndex]
                accounts[index].notes[noteIndex] = Item(id: note.id, accountID: note.accountID, updatedAt: clock, text: note.text, textKey: "body")
                touched.append(note.id)
            }
        }
        func list(_ ids: some Sequence<Int>) -> JSONValue { .array(ids.map(JSONValue.integer)) }
        return .json(.object([
            "clock": .string(ISO8601Text.string(from: Double(clock))),
            "updated": list(updated), "inserted": list(inserted), "deleted": list(deleted), "notes": list(touched),
        ]))
    }

    private func reset() -> Reply {
        (accounts, eventAccounts) = Self.generate(size)
        nextEventID = size.accounts * size.events + 1
        clock = Self.clockStart
        requestCounts = [:]
        return .json(bytes: Array("{}".utf8))
    }

    /// An account's events changed after `token` (all without one), oldest first, with the token
    /// of now to send next time: `{"changes": […], "nextToken": "…"}`. The token is opaque to
    /// clients (the clock in seconds).
    private func changes(_ request: RouteRequest) -> Reply {
        count(Self.changesPattern)
        guard let index = accountIndex(request) else { return Self.accountNotFound }
        var after = Int64.min
        if let token = request.query("token") {
            guard let seconds = Int64(token) else { return .error(.badRequest, "error", "token: not a token this API handed out: '\(token)'") }
            after = seconds
        }
        let events = accounts[index].events
        let first = Self.firstIndex(events) { $0.updatedAt > after }
        var body: [UInt8] = Array(#"{"changes":["#.utf8)
        for (offset, event) in events[first...].enumerated() {
            if offset > 0 { body.append(UInt8(ascii: ",")) }
            body += event.json
        }
        body += Array(#"],"nextToken":"\#(clock)"}"#.utf8)
        return .json(bytes: body)
    }

    /// The folders directly in `parent` (the root folders for `nil`), by id.
    private func subfolders(of parent: Int?) -> Reply {
        count(parent == nil ? Self.rootFoldersPattern : Self.subfoldersPattern)
        return .jsonArray(Self.folders.lazy.filter { $0.parentID == parent }.map(\.json))
    }

    private func stats() -> Reply {
        let patterns = [Self.accountsPattern, Self.eventsPattern, Self.notesPattern, Self.changesPattern,
                        Self.rootFoldersPattern, Self.subfoldersPattern]
        return .json(.object([
            "clock": .string(ISO8601Text.string(from: Double(clock))),
            "requests": .object(patterns.map { JSONValue.Member(key: $0, value: .integer(requestCounts[$0, default: 0])) }),
        ]))
    }
}

/// Sebastiano Vigna's SplitMix64: a small seeded generator, the same sequence on every platform.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound (bound > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// Reads the ISO 8601 date-times the sync filters take (the dates plugin's parser): a date, a
/// time and a zone (`Z` or an offset), the zone required. A `+` that arrived unencoded in a query,
/// and so reads as a space, is taken as `+`.
enum ISO8601Parse {
    /// Seconds since 1970-01-01T00:00:00Z; `nil` when the text is not such a date-time.
    static func seconds(_ text: String) -> Double? {
        var text = text
        if let space = text.lastIndex(of: " "), text.distance(from: text.startIndex, to: space) >= 19 {
            text.replaceSubrange(space...space, with: "+")
        }
        guard text.utf8.count > 10, let parsed = ISO8601Parser.parse(text), parsed.offsetSeconds != nil else { return nil }
        return parsed.utcSeconds
    }
}

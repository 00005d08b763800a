/// A resource `restmap sync` keeps in step with the service: a `sync:` entry (Docs/Sync.md).
public struct SyncResource: Sendable {
    /// The resource's name (its key under `sync:`).
    public var name: String
    public var location: SourceLocation
    /// The named GET route fetched.
    public var route: Located<String>
    /// The entity of the records the route returns.
    public var entity: Located<String>
    /// Fan-out: the route runs once per stored record of the parent entity.
    public var parent: SyncParent?
    /// Incremental state; `nil` re-reads the whole resource each run.
    public var cursor: SyncCursor?
}

/// The parent records a fanned-out resource runs once for.
public struct SyncParent: Sendable {
    /// The parent entity.
    public var entity: Located<String>
    /// Route parameter → parent attribute; a route parameter not listed takes the attribute of its own name.
    public var parameters: [String: Located<String>]
    /// For a resource that fans out over its own entity (folders in folders): how many levels
    /// below the records other resources stored it goes at most.
    public var depth: Int?
}

/// How a resource fetches only what changed since the last run.
public struct SyncCursor: Sendable {
    /// Where the state is compared with the records.
    public enum Filter: String, Sendable {
        /// The API filters by `parameter`.
        case server
        /// The API cannot filter: everything is fetched and only records newer than the state are kept.
        case client
    }

    /// The records' attribute that grows with each change (a date, an integer or text that
    /// sorts); `nil` for a cursor the API hands back (`token`).
    public var attribute: Located<String>?
    /// Where each response holds the token to send next time (a delta or sync token the API
    /// hands back), instead of an attribute of the records.
    public var token: MappingKeyPath?
    /// The query parameter that carries the state (`since`); `nil` with `filter: client`.
    public var parameter: String?
    /// The state of a first run (the parameter is left out when there is none).
    public var start: String?
    /// Re-read this much before the state: seconds for a date cursor, units for a number.
    public var lookback: Int
    public var filter: Filter
    /// The API answers in ascending cursor order, so the state may advance with each page.
    public var ordered: Bool
    /// Date windows: each request asks for `[start, start + window)` seconds, with `endParameter`
    /// carrying the end, up to now.
    public var window: Int?
    /// The query parameter carrying a window's end (`until`).
    public var endParameter: String?
}

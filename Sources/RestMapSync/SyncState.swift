import Foundation
import RestMap
import RestMapClient
import RestMapSchema

/// A value of a cursor attribute, ordered as the API orders it.
public enum SyncCursorValue: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    case date(Date)
    case integer(Int64)
    case text(String)

    /// The cursor value of a record's attribute; `nil` for null or a kind that does not order.
    init?(_ value: Value?) {
        switch value {
        case .date(let date)?: self = .date(date)
        case .integer(let number)?: self = .integer(number)
        case .string(let text)?: self = .text(text)
        default: return nil
        }
    }

    /// How the value travels in a query parameter: ISO 8601 in UTC for dates.
    public var description: String {
        switch self {
        case .date(let date): ISO8601Text.string(from: date.timeIntervalSince1970)
        case .integer(let number): String(number)
        case .text(let text): text
        }
    }

    /// The value `amount` before this one (seconds for a date, units for a number); text has no lookback.
    func moved(back amount: Int) -> SyncCursorValue {
        switch self {
        case .date(let date): .date(date.addingTimeInterval(-Double(amount)))
        case .integer(let number): .integer(number - Int64(amount))
        case .text: self
        }
    }

    public static func < (lhs: SyncCursorValue, rhs: SyncCursorValue) -> Bool {
        switch (lhs, rhs) {
        case (.date(let a), .date(let b)): a < b
        case (.integer(let a), .integer(let b)): a < b
        case (.text(let a), .text(let b)): a < b
        default: lhs.description < rhs.description
        }
    }
}

/// What `restmap sync` keeps per (resource, parent), in the store beside the records.
public struct SyncState: Sendable, Codable, Hashable {
    /// The newest cursor value of a finished run: the next run starts from it (less the lookback).
    public var highWater: SyncCursorValue?
    /// The newest cursor value seen by the run in progress.
    public var runNewest: SyncCursorValue?
    /// Where the run in progress goes on (the next page), when one was interrupted.
    public var resume: PageResumePoint?
    /// The end of the date window in progress.
    public var windowEnd: Date?
    /// The cursor the state belongs to (attribute, parameter, filter): another one starts over.
    public var cursorSignature: String
    /// When the last run ended.
    public var lastRun: Date?
    /// Records kept and pages fetched by the last finished run (or the one in progress).
    public var records = 0
    public var pages = 0
    /// Why the last finished run stopped.
    public var stopReason: String?
    /// The error that ended the last run, if it failed.
    public var lastError: String?

    init(cursorSignature: String) {
        self.cursorSignature = cursorSignature
    }

    static func signature(of cursor: SyncCursor?) -> String {
        guard let cursor else { return "" }
        return [cursor.attribute?.value ?? "token:\(cursor.token?.text ?? "")", cursor.parameter ?? "", cursor.filter.rawValue].joined(separator: "|")
    }
}

/// The state of one (resource, parent), as `restmap sync status` lists it.
public struct SyncStatus: Sendable {
    public var resource: String
    /// The parent's identification (`accountID=1`); empty for a resource without fan-out.
    public var parent: String
    public var state: SyncState
}

/// Keys of the store's checkpoints: `sync/<resource>/<parent>`.
enum SyncKey {
    static let prefix = "sync/"

    static func key(resource: String, parent: String) -> String { "\(prefix)\(resource)/\(parent)" }

    static func resourcePrefix(_ resource: String) -> String { "\(prefix)\(resource)/" }

    /// The (resource, parent) of a key.
    static func parts(of key: String) -> (resource: String, parent: String)? {
        guard key.hasPrefix(prefix) else { return nil }
        let rest = key.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return (String(rest[..<slash]), String(rest[rest.index(after: slash)...]))
    }
}

import FoundationEssentials
/// A set of HTTP status codes: `200`, `2xx`, `400-499`, or a list of these.
public struct StatusSpecification: Sendable, Hashable, CustomStringConvertible {
    public var ranges: [ClosedRange<Int>]

    public init(_ ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    /// 200–299, the default of response descriptors.
    public static let successful = StatusSpecification([200...299])
    /// 400–599, the default of error descriptors.
    public static let failures = StatusSpecification([400...599])

    public func contains(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }

    public var description: String {
        ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }

    /// Parses one item: `201`, `2xx` or `400-499`.
    public static func parseItem(_ text: String) -> ClosedRange<Int>? {
        let text = trimmed(text[...])
        if let code = Int(text) { return (100...599).contains(code) ? code...code : nil }
        let lower = text.lowercased()
        if lower.count == 3, lower.hasSuffix("xx"), let digit = Int(lower.prefix(1)), (1...5).contains(digit) {
            return (digit * 100)...(digit * 100 + 99)
        }
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false)
        if bounds.count == 2, let low = Int(trimmed(bounds[0])), let high = Int(trimmed(bounds[1])),
           (100...599).contains(low), (100...599).contains(high), low <= high {
            return low...high
        }
        return nil
    }

    /// `text` without the blanks around it (spaces and tabs, what `CharacterSet.whitespaces`
    /// matches; Foundation's trimming costs a tenth of a millisecond the first time, on every start).
    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank = { (character: Character) in character.isWhitespace && !character.isNewline }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return text[first...last]
    }
}

/// A route specification: `GET /users/:login`.
public struct RouteSpecification: Sendable, Hashable {
    /// `nil` stands for ANY.
    public var method: String?
    public var pattern: PathPattern

    public init(method: String?, pattern: PathPattern) {
        self.method = method
        self.pattern = pattern
    }
}

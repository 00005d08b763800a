/// A parsed key path: where a value sits in a representation (section 3 of the language).
public struct MappingKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a key path.
    public enum Segment: Sendable, Hashable {
        /// An object member; when the text is a non-negative integer it also indexes arrays.
        case key(String, index: Int?)
        /// `@self`: the representation itself.
        case selfReference
        /// `@parent`: the enclosing representation.
        case parent
        /// `@root`: the whole document.
        case root
        /// `@metadata`: the following segments walk the mapping metadata.
        case metadata
        /// A collection operator applied to the array reached so far.
        case collection(CollectionOperator)
    }

    public var segments: [Segment]
    /// The key path as written.
    public var text: String

    public init(segments: [Segment], text: String) {
        self.segments = segments
        self.text = text
    }

    /// A key path of plain keys (no operators, no escapes needed).
    public init(keys: [String]) {
        self.segments = keys.map { .key($0, index: Self.arrayIndex($0)) }
        self.text = keys.map { $0.replacing(".", with: "\\.") }.joined(separator: ".")
    }

    public var description: String { text }

    /// `true` for the bare `@self` path.
    public var isSelf: Bool { segments == [.selfReference] }

    /// The single plain key of a one-segment path, if that is what this is.
    public var singleKey: String? {
        if segments.count == 1, case .key(let key, _) = segments[0] { return key }
        return nil
    }

    static func arrayIndex(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// Why a key path is malformed, and at which character offset.
    public struct ParseError: Error, Sendable, Hashable {
        public var message: String
        public var offset: Int
    }

    /// Parses `a.b.c`, with `\.` for a literal dot and `\@` for a literal leading `@`.
    public static func parse(_ text: String) throws(ParseError) -> MappingKeyPath {
        if text.isEmpty { throw ParseError(message: "empty key path", offset: 0) }
        var raw: [(text: String, offset: Int, escapedAt: Bool)] = []
        var current = ""
        var start = 0
        var escapedAt = false
        var offset = 0
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            if character == "\\" {
                guard let next = iterator.next() else {
                    throw ParseError(message: "a key path cannot end with '\\'", offset: offset)
                }
                if next == "@", current.isEmpty { escapedAt = true }
                current.append(next)
                offset += 2
                continue
            }
            if character == "." {
                raw.append((current, start, escapedAt))
                current = ""
                escapedAt = false
                start = offset + 1
            } else {
                current.append(character)
            }
            offset += 1
        }
        raw.append((current, start, escapedAt))
        return try build(raw, text: text)
    }

    /// A key path from literal segments (the list form): no operators, dots are literal.
    public static func literal(_ keys: [String]) throws(ParseError) -> MappingKeyPath {
        guard !keys.isEmpty else { throw ParseError(message: "empty key path", offset: 0) }
        if let empty = keys.firstIndex(where: \.isEmpty) {
            throw ParseError(message: "segment \(empty + 1) of the key path is empty", offset: 0)
        }
        return MappingKeyPath(keys: keys)
    }

    private static func build(_ raw: [(text: String, offset: Int, escapedAt: Bool)], text: String) throws(ParseError) -> MappingKeyPath {
        var segments: [Segment] = []
        var inMetadata = false
        for (position, part) in raw.enumerated() {
            if part.text.isEmpty {
                throw ParseError(message: "empty segment in key path '\(text)'", offset: part.offset)
            }
            guard part.text.hasPrefix("@"), !part.escapedAt, !inMetadata else {
                segments.append(.key(part.text, index: arrayIndex(part.text)))
                continue
            }
            let isFirst = position == 0
            let previous = segments.last
            switch part.text {
            case "@self":
                guard raw.count == 1 else {
                    throw ParseError(message: "'@self' stands alone: it is the whole representation", offset: part.offset)
                }
                segments.append(.selfReference)
            case "@root":
                guard isFirst else { throw ParseError(message: "'@root' must be the first segment", offset: part.offset) }
                segments.append(.root)
            case "@parent":
                guard isFirst || previous == .parent else {
                    throw ParseError(message: "'@parent' must come first (or after another '@parent')", offset: part.offset)
                }
                segments.append(.parent)
            case "@metadata":
                guard isFirst else { throw ParseError(message: "'@metadata' must be the first segment", offset: part.offset) }
                guard raw.count > 1 else {
                    throw ParseError(message: "'@metadata' needs a key after it, such as '@metadata.routing.parameters.id'", offset: part.offset)
                }
                segments.append(.metadata)
                inMetadata = true
            default:
                let name = String(part.text.dropFirst())
                if let op = CollectionOperator(rawValue: name) {
                    if case .collection(let earlier)? = previous, earlier.isAggregate {
                        throw ParseError(message: "'@\(name)' cannot follow '@\(earlier.rawValue)', which yields a single value", offset: part.offset)
                    }
                    if op == .count, position != raw.count - 1 {
                        throw ParseError(message: "'@count' must be the last segment", offset: part.offset)
                    }
                    segments.append(.collection(op))
                } else if jsonLDKeywords.contains(part.text) {
                    segments.append(.key(part.text, index: nil))  // JSON-LD's "@id", "@type", …: always literal
                } else if let near = operatorLookalikes[name.lowercased()] ?? Suggestions.closest(to: part.text, in: reservedWords),
                          near != part.text {
                    throw ParseError(
                        message: "unknown operator '\(part.text)' (did you mean '\(near)'? write '\\\(part.text)' for a literal key)",
                        offset: part.offset)
                } else {
                    segments.append(.key(part.text, index: nil))  // a literal key such as JSON-LD's "@id"
                }
            }
        }
        return MappingKeyPath(segments: segments, text: text)
    }

    /// Every reserved `@` word.
    public static let reservedWords = ["@self", "@parent", "@root", "@metadata"] + CollectionOperator.allCases.map { "@\($0.rawValue)" }

    /// JSON-LD keywords: keys that start with `@` but are data, never operators (`@set` is not a
    /// misspelled `@self`, `@list` not a misspelled `@last`).
    public static let jsonLDKeywords: Set<String> = [
        "@id", "@type", "@context", "@value", "@language", "@graph", "@list", "@set", "@reverse", "@index", "@base",
        "@vocab", "@container", "@nest", "@prefix", "@propagate", "@protected", "@version", "@json", "@none",
        "@direct", "@included",
    ]

    /// Words that read like an operator without being near it in spelling: other spellings of
    /// aggregates and Key-Value Coding's collection operators (`@average` → `@avg`).
    public static let operatorLookalikes: [String: String] = [
        "average": "@avg", "mean": "@avg", "maximum": "@max", "minimum": "@min", "total": "@sum", "summation": "@sum",
        "counts": "@count", "length": "@count", "size": "@count", "unique": "@distinct",
        "distinctunionofobjects": "@distinct", "unionofobjects": "@flatten", "unionofarrays": "@flatten",
        "distinctunionofarrays": "@distinct", "firstobject": "@first", "lastobject": "@last", "flattened": "@flatten",
        "this": "@self", "parentobject": "@parent", "document": "@root", "meta": "@metadata",
    ]
}

/// A collection operator (`@count`, `@avg`, …) applied to an array.
public enum CollectionOperator: String, Sendable, Hashable, CaseIterable {
    case count, sum, avg, min, max, first, last, distinct, flatten

    /// Operators that reduce an array to one value.
    public var isAggregate: Bool {
        switch self {
        case .count, .sum, .avg, .min, .max: true
        case .first, .last, .distinct, .flatten: false
        }
    }
}

/// The former name of `MappingKeyPath`, which shadowed `Swift.KeyPath` in every file importing this module.
@available(*, deprecated, renamed: "MappingKeyPath")
public typealias KeyPath = MappingKeyPath

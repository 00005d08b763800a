import FoundationEssentials
import RestMap

/// A guess that an object's keys name its records (`keyedBy`), with the attribute the keys fill.
struct KeyedCollectionGuess: Equatable {
    /// The attribute that receives each key (`id`, `name`…).
    var attribute: String
    /// The keys look like identifiers (push ids, numbers, UUIDs): the attribute can identify records.
    var keysAreIdentifiers: Bool
    /// Why, for the draft's comment.
    var reason: String
}

/// How drafts tell collections, envelopes and records apart.
enum RecordShapes {
    // MARK: Objects keyed by ids

    /// `{"-NyQ4k7…": {…}, "-NyQ4k8…": {…}}`, `{"17": {…}}`, `{"ada": {"login": "ada"}, …}`: an object
    /// whose values are objects of one shape and whose keys are identifiers, not field names.
    ///
    /// The keys decide: all of them identifier-like (push ids, numbers, UUIDs, hex or mixed
    /// letter-and-digit tokens), or at least three that are not plausible field names, or at least
    /// two whose values each repeat their key (`"login": "ada"`). Two keys such as `billing` and
    /// `shipping` holding addresses stay relationships.
    static func keyedCollection(_ entries: [Value.Member]) -> KeyedCollectionGuess? {
        guard !entries.isEmpty, entries.allSatisfy({ if case .object = $0.value { true } else { false } }),
              sharesOneShape(entries.map(\.value)) else { return nil }
        let keys = entries.map(\.key)
        let valueKeys = Set(entries.flatMap { SchemaInference.keys($0.value) })
        let example = keys[0].count > 24 ? String(keys[0].prefix(24)) + "…" : keys[0]
        if keys.allSatisfy(isIdentifierLike) {
            return KeyedCollectionGuess(attribute: attributeName(preferring: "id", avoiding: valueKeys), keysAreIdentifiers: true,
                                        reason: "the keys look like identifiers ('\(example)')")
        }
        if keys.count >= 3, !keys.contains(where: isPlausibleFieldName) {
            return KeyedCollectionGuess(attribute: attributeName(preferring: "name", avoiding: valueKeys), keysAreIdentifiers: false,
                                        reason: "\(keys.count) keys that are not field names ('\(example)')")
        }
        if keys.count >= 2, entries.allSatisfy({ entry in
            SchemaInference.keys(entry.value).contains { entry.value[$0]?.stringValue == entry.key }
        }) {
            return KeyedCollectionGuess(attribute: attributeName(preferring: "key", avoiding: valueKeys), keysAreIdentifiers: false,
                                        reason: "each value repeats its key ('\(example)')")
        }
        return nil
    }

    /// The values' keys overlap: at least one key in common and half of all keys in every value.
    static func sharesOneShape(_ values: [Value]) -> Bool {
        let shapes = values.map { Set(SchemaInference.keys($0)) }.filter { !$0.isEmpty }
        guard let first = shapes.first else { return false }
        let common = shapes.dropFirst().reduce(first) { $0.intersection($1) }
        let all = shapes.dropFirst().reduce(first) { $0.union($1) }
        return !common.isEmpty && common.count * 2 >= all.count
    }

    /// Numbers, UUIDs, Firebase push ids, hex ids and tokens that mix letters and digits
    /// (`U024BE7LH`, `cus_NffrFeUfNV2Hib`); not `line2` or `address_1`.
    static func isIdentifierLike(_ key: String) -> Bool {
        if key.wholeMatch(of: /-?\d{1,20}/) != nil { return true }
        if key.wholeMatch(of: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/) != nil { return true }
        if key.wholeMatch(of: /-[A-Za-z0-9_-]{19}/) != nil { return true }
        if key.wholeMatch(of: /[0-9a-f]{12,}/) != nil, key.contains(where: \.isNumber) { return true }
        guard key.count >= 6, key.wholeMatch(of: /[A-Za-z0-9_:-]+/) != nil,
              key.contains(where: \.isNumber), key.contains(where: \.isLetter) else { return false }
        // A word with a short number at its end is a field name (`line2`, `address_1`).
        return key.wholeMatch(of: /[A-Za-z]+[_-]?\d{1,2}/) == nil
    }

    /// Lower-case words, snake_case, kebab-case or camelCase, with at most a one-digit suffix.
    static func isPlausibleFieldName(_ key: String) -> Bool {
        key.count <= 32 && (key.wholeMatch(of: /_?[a-z]+([_-][a-z]+)*\d?/) != nil || key.wholeMatch(of: /[a-z]+([A-Z][a-z]+)*\d?/) != nil)
    }

    private static func attributeName(preferring preferred: String, avoiding valueKeys: Set<String>) -> String {
        let taken = Set(valueKeys.map(Naming.attributeName)).union(valueKeys)
        for candidate in [preferred, "key"] where !taken.contains(candidate) { return candidate }
        return Naming.unique("key", in: taken)
    }

    // MARK: Envelopes

    /// Words of the keys an envelope has next to its records: paging, counts, status, links, meta.
    static let envelopeWords: Set<String> = [
        "ok", "status", "success", "object", "type", "kind", "url", "href", "uri", "self", "count", "total", "page", "pages",
        "per", "size", "limit", "offset", "cursor", "cursors", "next", "prev", "previous", "first", "last", "more", "has",
        "incomplete", "results", "result", "links", "link", "meta", "pagination", "paging", "metadata", "token", "took",
        "timed", "request", "cache", "ts", "errors", "error", "warnings", "warning", "message", "messages", "etag", "version",
        "api", "query", "start", "end", "before", "after", "continuation", "scroll", "num", "number", "max", "estimated",
        "included", "includes", "embedded", "response", "generated", "timestamp", "code", "bbox", "crs", "expand", "region",
    ]

    /// A member of a body that belongs to its envelope (paging, counts, status), judged by its key.
    static func isEnvelopeKey(_ key: String) -> Bool {
        let words = Naming.words(key).map { $0.lowercased() }
        return !words.isEmpty && words.contains(where: envelopeWords.contains)
    }

    /// A key that identifies a record (`id`, `uuid`, `_id`, `@id`): a body that has one is a record.
    static func isIdentifierKey(_ key: String) -> Bool {
        let words = Naming.words(key).map { $0.lowercased() }
        return words == ["id"] || words == ["uuid"] || words == ["guid"]
    }
}

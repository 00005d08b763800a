/// The grammar of schema files: what each node may hold.
///
/// One description drives both the structural validator and the JSON Schema export
/// (`restmap schema --json-schema`), so editors and `restmap validate` agree.
public indirect enum Shape: Sendable {
    /// A string; `format` names a syntax checked after structure (key path, path pattern, …).
    case string(StringFormat)
    case integer(minimum: Int?)
    case boolean
    /// Any value at all.
    case any
    /// One of fixed words.
    case enumeration([String])
    case list(Shape)
    /// A mapping with free keys (entity names, route names) and values of one shape.
    case dictionary(Shape, maximumEntries: Int? = nil)
    /// A mapping with known keys.
    case object(ObjectShape)
    /// Alternatives told apart by the node's kind (scalar, list or mapping).
    case choice([Shape])

    /// The syntax a string must follow.
    public enum StringFormat: String, Sendable {
        case text, keyPath, pathPattern, route, status, url, entityName, pluginName

        /// Whether a plain number is read as its text: a key path may be an array index, a
        /// header a version number, a status a code; names, routes, patterns and URLs may not.
        public var acceptsNumbers: Bool {
            switch self {
            case .text, .keyPath, .status: true
            case .pathPattern, .route, .url, .entityName, .pluginName: false
            }
        }
    }

    /// How the shape is described to a person ("a mapping", "a list or a string").
    var expectation: String {
        switch self {
        case .string(.status): return "a status (200, 2xx or 400-499)"
        case .string, .enumeration: return "a string"
        case .integer: return "an integer"
        case .boolean: return "true or false"
        case .any: return "a value"
        case .list: return "a list"
        case .dictionary, .object: return "a mapping"
        case .choice:
            var kinds: [String] = []
            for kind in alternativeKinds where !kinds.contains(kind) { kinds.append(kind) }
            guard let last = kinds.last, kinds.count > 1 else { return kinds.first ?? "a value" }
            return kinds.dropLast().joined(separator: ", ") + " or " + last
        }
    }
}

extension Shape {
    /// The expectation of each alternative, nested choices flattened.
    private var alternativeKinds: [String] {
        if case .choice(let shapes) = self { return shapes.flatMap(\.alternativeKinds) }
        return [expectation]
    }
}

/// A mapping with known keys.
public struct ObjectShape: Sendable {
    /// The name of the construct ("entity", "attribute"): used in messages and as the JSON Schema definition name.
    public var name: String
    public var summary: String
    public var properties: [Property]

    public init(_ name: String, _ summary: String, _ properties: [Property]) {
        self.name = name
        self.summary = summary
        self.properties = properties
    }

    public func property(named key: String) -> Property? {
        properties.first { $0.name == key }
    }
}

/// One known key of an `ObjectShape`.
public struct Property: Sendable {
    public var name: String
    public var shape: Shape
    public var isRequired: Bool
    public var summary: String

    public init(_ name: String, _ shape: Shape, required: Bool = false, _ summary: String) {
        self.name = name
        self.shape = shape
        self.isRequired = required
        self.summary = summary
    }
}

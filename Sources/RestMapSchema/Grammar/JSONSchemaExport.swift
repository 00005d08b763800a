/// The schema language as a JSON Schema (draft 2020-12), generated from `RestMapGrammar.schema`:
/// the same `Shape` values the structural validator walks, so editors and `restmap validate`
/// agree on structure. `restmap schema --json-schema` prints it; `Schemas/restmap.schema.json`
/// is the committed copy.
///
/// Named object shapes (entity, attribute, relationship, …) become `$defs`; choices become
/// `anyOf`; string formats with a cheap regular expression (status, route, path pattern, key
/// path, URL, plugin name) carry it as `pattern`. Output is deterministic: keys in a fixed order, `$defs`
/// sorted by name, two-space indentation, a final newline.
public enum JSONSchemaExport {
    /// The JSON Schema document of `shape` (by default the whole schema language).
    public static func document(for shape: Shape = RestMapGrammar.schema) -> String {
        var builder = Builder()
        var root: [(String, JSONValue)] = [
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("RestMap schema, format version \(RestMapGrammar.supportedVersions.map(String.init).joined(separator: ", "))")),
        ]
        if case .object(let object) = shape {
            root += builder.objectBody(object, isRoot: true)
        } else {
            root += builder.schema(for: shape).members
        }
        if !builder.definitions.isEmpty {
            let sorted = builder.definitions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            root.append(("$defs", .object(sorted)))
        }
        var output = ""
        JSONValue.object(root).write(into: &output, indentation: "")
        return output + "\n"
    }

    /// A status class (`4xx`), code (`404`) or range (`400-499`).
    static let statusPattern = #"^[1-5][xX][xX]$|^\d{3}(-\d{3})?$"#

    /// Regular expressions (ECMA-262 and Python `re` alike) of the string formats that have a cheap one.
    static func pattern(of format: Shape.StringFormat) -> String? {
        switch format {
        case .status: statusPattern
        case .route: "^(\(RestMapGrammar.methods.joined(separator: "|"))) /"
        case .pathPattern: "^/"
        // Segments of unescaped non-dot characters or escapes, one dot between: no empty segment.
        case .keyPath: #"^(?:[^.\\]|\\.)+(?:\.(?:[^.\\]|\\.)+)*$"#
        case .url: "^[Hh][Tt][Tt][Pp][Ss]?://[^/]"
        case .pluginName: "^[A-Za-z0-9_-]+$"
        case .text, .entityName: nil
        }
    }

    private struct Builder {
        var definitions: [String: JSONValue] = [:]

        /// The members of the JSON Schema of `shape`.
        mutating func schema(for shape: Shape) -> JSONValue {
            switch shape {
            case .string(.status):
                // A code 100...599, or a code, class or range written as a string.
                return .object([("anyOf", .array([
                    .object([("type", .string("integer")), ("minimum", .integer(100)), ("maximum", .integer(599))]),
                    .object([("type", .string("string")), ("pattern", .string(JSONSchemaExport.statusPattern))]),
                ]))])
            case .string(let format):
                var members: [(String, JSONValue)] = [
                    ("type", format.acceptsNumbers ? .array([.string("string"), .string("number")]) : .string("string")),
                ]
                if let pattern = JSONSchemaExport.pattern(of: format) { members.append(("pattern", .string(pattern))) }
                return .object(members)
            case .integer(let minimum):
                var members: [(String, JSONValue)] = [("type", .string("integer"))]
                if let minimum { members.append(("minimum", .integer(minimum))) }
                return .object(members)
            case .boolean:
                return .object([("type", .string("boolean"))])
            case .any:
                return .object([])
            case .enumeration(let words):
                return .object([("type", .string("string")), ("enum", .array(words.map(JSONValue.string)))])
            case .list(let item):
                return .object([("type", .string("array")), ("items", schema(for: item))])
            case .dictionary(let value, let maximumEntries):
                var members: [(String, JSONValue)] = [("type", .string("object"))]
                if let maximumEntries { members.append(("maxProperties", .integer(maximumEntries))) }
                members.append(("additionalProperties", schema(for: value)))
                return .object(members)
            case .object(let object):
                if definitions[object.name] == nil {
                    definitions[object.name] = .object(objectBody(object, isRoot: false))
                }
                return .object([("$ref", .string("#/$defs/\(object.name)"))])
            case .choice(let alternatives):
                return .object([("anyOf", .array(alternatives.map { schema(for: $0) }))])
            }
        }

        /// `type`, `description`, `properties`, `required` and `additionalProperties: false` of an object.
        mutating func objectBody(_ object: ObjectShape, isRoot: Bool) -> [(String, JSONValue)] {
            var properties: [(String, JSONValue)] = []
            for property in object.properties {
                var members: [(String, JSONValue)] = [("description", .string(property.summary))]
                if isRoot, property.name == "restmap" {
                    // The format version: one of the versions this runtime reads.
                    let versions = RestMapGrammar.supportedVersions.map(JSONValue.integer)
                    members.append(versions.count == 1 ? ("const", versions[0]) : ("enum", .array(versions)))
                } else {
                    members += schema(for: property.shape).members
                }
                properties.append((property.name, .object(members)))
            }
            var body: [(String, JSONValue)] = [("description", .string(object.summary)), ("type", .string("object"))]
            body.append(("properties", .object(properties)))
            let required = object.properties.filter(\.isRequired).map { JSONValue.string($0.name) }
            if !required.isEmpty { body.append(("required", .array(required))) }
            body.append(("additionalProperties", .bool(false)))
            return body
        }
    }
}

/// A JSON value with members in a fixed order, written with two-space indentation.
private enum JSONValue {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// The members of an object (empty for other values).
    var members: [(String, JSONValue)] {
        if case .object(let members) = self { return members }
        return []
    }

    func write(into output: inout String, indentation: String) {
        let inner = indentation + "  "
        switch self {
        case .string(let text): Self.quote(text, into: &output)
        case .integer(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .array(let items):
            guard !items.isEmpty else { output += "[]"; return }
            output += "[\n"
            for (index, item) in items.enumerated() {
                output += inner
                item.write(into: &output, indentation: inner)
                output += index == items.count - 1 ? "\n" : ",\n"
            }
            output += indentation + "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{\n"
            for (index, (key, value)) in members.enumerated() {
                output += inner
                Self.quote(key, into: &output)
                output += ": "
                value.write(into: &output, indentation: inner)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += indentation + "}"
        }
    }

    static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

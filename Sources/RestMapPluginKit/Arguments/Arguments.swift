/// Typed access to a transformer's arguments, with errors that name the argument (the host adds
/// the transformer's name).
///
/// ```swift
/// let arguments = Arguments(rawArguments)
/// let formats = try arguments.strings("formats") ?? []
/// ```
public struct Arguments: Sendable {
    /// The raw arguments by name.
    public var values: [String: Value]

    /// Wraps the raw arguments of a transformer or body decoder.
    public init(_ values: [String: Value]) {
        self.values = values
    }

    /// A string argument, `nil` when absent or null.
    public func string(_ name: String) throws(TransformerError) -> String? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let string)?: return string
        case let other?: throw mismatch(name, "a string", other)
        }
    }

    /// A list-of-strings argument, `nil` when absent or null; a single string counts as a list of one.
    public func strings(_ name: String) throws(TransformerError) -> [String]? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let string)?: return [string]
        case .array(let elements)?:
            var strings: [String] = []
            for element in elements {
                guard case .string(let string) = element else { throw mismatch(name, "a list of strings", element) }
                strings.append(string)
            }
            return strings
        case let other?: throw mismatch(name, "a list of strings", other)
        }
    }

    /// A boolean argument, `nil` when absent or null.
    public func boolean(_ name: String) throws(TransformerError) -> Bool? {
        switch values[name] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case let other?: throw mismatch(name, "a boolean", other)
        }
    }

    /// An argument that must be present and not null.
    public func required<T>(_ name: String, _ read: (String) throws(TransformerError) -> T?) throws(TransformerError) -> T {
        guard let value = try read(name) else { throw TransformerError("missing required argument '\(name)'") }
        return value
    }

    private func mismatch(_ name: String, _ expected: String, _ found: Value) -> TransformerError {
        TransformerError("argument '\(name)' must be \(expected), found \(found.kindName)")
    }
}

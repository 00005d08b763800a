/// A configured value transformer: one step of an attribute's `transform:` chain.
///
/// Instances are made once per schema (with their arguments) and then called for every value, from
/// many tasks at once, so they must be immutable and `Sendable`.
public protocol ValueTransformer: Sendable {
    /// Transforms a value read from a response (the mapping direction).
    func transform(_ value: Value) throws -> Value
    /// Transforms a record value on its way into a request body (the serialization direction).
    /// The default returns the value unchanged.
    func reverseTransform(_ value: Value) throws -> Value
}

extension ValueTransformer {
    public func reverseTransform(_ value: Value) throws -> Value { value }
}

/// A transformer that reads a string's UTF-8 in place (a loaded plugin's: the bytes cross the C
/// ABI as they are), so that a string read from a body need not become a `String` first.
package protocol UTF8StringTransformer: ValueTransformer {
    /// The same as `transform(.string(String(decoding: utf8, as: UTF8.self)))`.
    func transform(stringUTF8 utf8: UnsafeBufferPointer<UInt8>) throws -> Value
}

/// The error a transformer throws for a value it cannot transform.
public struct TransformerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, naming the offending value; the host adds the transformer and position.
    public var message: String
    /// An error with a message.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The shape of one transformer argument, so the validator can check `{dates.parse: {formats: …}}`.
public struct ArgumentSpec: Sendable, Hashable {
    /// What kind of value an argument takes.
    public enum Kind: String, Sendable, Hashable {
        case string, strings, integer, number, boolean, any
    }
    /// The argument's name (`formats`).
    public var name: String
    /// What kind of value it takes.
    public var kind: Kind
    /// Whether a step must give it.
    public var isRequired: Bool
    /// One line for `restmap plugins` and validator messages.
    public var summary: String

    /// An argument shape.
    public init(_ name: String, _ kind: Kind, required: Bool = false, summary: String = "") {
        self.name = name
        self.kind = kind
        self.isRequired = required
        self.summary = summary
    }
}

/// A named transformer a plugin provides: its argument shapes and how to configure an instance.
public struct TransformerDefinition: Sendable {
    /// The unqualified name (`rfc1123`); schemas use it qualified by the plugin name (`dates.rfc1123`).
    public var name: String
    /// One line for `restmap plugins`.
    public var summary: String
    /// The arguments it accepts.
    public var arguments: [ArgumentSpec]
    /// Makes a configured transformer from the step's arguments (an empty dictionary when none).
    public var make: @Sendable (_ arguments: [String: Value]) throws -> any ValueTransformer

    /// A transformer definition.
    public init(
        name: String,
        summary: String,
        arguments: [ArgumentSpec] = [],
        make: @escaping @Sendable (_ arguments: [String: Value]) throws -> any ValueTransformer
    ) {
        self.name = name
        self.summary = summary
        self.arguments = arguments
        self.make = make
    }
}

/// A body decoder a plugin provides for a media type (`text/csv`): it turns a body into JSON bytes
/// that then map through the schema like any JSON body.
public struct BodyDecoderDefinition: Sendable {
    /// The media type it decodes (`text/csv`), without parameters.
    public var mediaType: String
    /// One line for `restmap plugins`.
    public var summary: String
    /// The arguments it accepts.
    public var arguments: [ArgumentSpec]
    /// Decodes a body into JSON bytes.
    public var decode: @Sendable (_ body: [UInt8], _ arguments: [String: Value]) throws -> [UInt8]

    /// A body decoder definition.
    public init(
        mediaType: String,
        summary: String,
        arguments: [ArgumentSpec] = [],
        decode: @escaping @Sendable (_ body: [UInt8], _ arguments: [String: Value]) throws -> [UInt8]
    ) {
        self.mediaType = mediaType
        self.summary = summary
        self.arguments = arguments
        self.decode = decode
    }
}

/// What a plugin author implements: a name, a version and the transformers and decoders.
public protocol RestMapPlugin {
    /// The plugin's name: the namespace of its transformers (`dates` gives `dates.rfc1123`).
    static var name: String { get }
    /// The plugin's own version, shown by `restmap plugins`.
    static var version: String { get }
    /// The transformers, by unqualified name.
    static var transformers: [TransformerDefinition] { get }
    /// The body decoders, by media type (none by default).
    static var bodyDecoders: [BodyDecoderDefinition] { get }
}

extension RestMapPlugin {
    public static var bodyDecoders: [BodyDecoderDefinition] { [] }
}

import FoundationEssentials
import RestMapJSON

/// Reading and writing `Value`s as JSON text: how arguments, arrays and objects cross the plugin
/// boundary, and what body decoders produce.
///
/// JSON has no date or URL type: dates are written as ISO 8601 UTC strings and URLs as strings.
/// When reading, an integer literal that fits 64 bits becomes `.integer`, any other number literal
/// `.decimal` (or `.number` when it has an exponent or more digits than a `Decimal` holds).
public enum JSONText {
    /// An error in JSON text: what was expected and the byte offset.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        /// The byte offset in the text.
        public var offset: Int
        public var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    /// Parses one JSON value from UTF-8 bytes (RFC 8259, as RestMapJSON reads it).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> Value {
        do {
            return Value(json: try JSONDocument(bytes: Array(bytes)).root)
        } catch {
            throw SyntaxError(message: error.message, offset: error.offset)
        }
    }

    /// Parses one JSON value from a string.
    public static func parse(_ text: String) throws(SyntaxError) -> Value {
        do {
            return Value(json: try JSONDocument(string: text).root)
        } catch {
            throw SyntaxError(message: error.message, offset: error.offset)
        }
    }

    /// The JSON text of a value.
    public static func string(from value: Value) -> String {
        var writer = JSONWriter()
        value.write(to: &writer)
        return writer.string
    }

    /// Appends the JSON text of a value.
    public static func write(_ value: Value, into bytes: inout [UInt8]) {
        var writer = JSONWriter()
        value.write(to: &writer)
        bytes += writer.bytes
    }

    /// Appends a JSON string literal (quoted and escaped).
    public static func writeString(_ string: String, into bytes: inout [UInt8]) {
        var writer = JSONWriter()
        writer.string(string)
        bytes += writer.bytes
    }

    /// Appends UTF-8 bytes as a JSON string literal (quoted and escaped).
    public static func writeString<Bytes: Sequence<UInt8>>(utf8 string: Bytes, into bytes: inout [UInt8]) {
        writeString(String(decoding: Array(string), as: UTF8.self), into: &bytes)
    }
}

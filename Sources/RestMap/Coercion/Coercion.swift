import FoundationEssentials
import RestMapJSON
import RestMapPluginKit
import RestMapSchema

/// Why a value could not be coerced to an attribute's type.
struct CoercionError: Error {
    var message: String
}

/// RestKit's value coercion rules (language section 2.1), from a JSON node or a transformed value.
final class Coercer: Sendable {
    /// The `dates.parse` transformer (default chain) when the dates plugin is loaded.
    let dateParser: (any ValueTransformer)?
    /// `dateParser` when it reads a string's UTF-8 in place (a loaded plugin's does), so a date
    /// string in a body crosses to the plugin without becoming a `String` first.
    private let utf8DateParser: (any UTF8StringTransformer)?

    init(dateParser: (any ValueTransformer)?) {
        self.dateParser = dateParser
        utf8DateParser = dateParser as? any UTF8StringTransformer
    }

    /// Coerces a node straight from the document: decimals come from the exact number text.
    /// (The unwraps below are total: each case has checked the node's kind.)
    func coerce(_ node: JSONNode, to type: AttributeType) throws(CoercionError) -> Value {
        switch (type, node.kind) {
        case (_, .null):
            return .null
        case (.decimal, .number):
            return .decimal(try Self.convert(number: node.number!.text, to: type) { $0.decimal() })
        case (.integer, .number):
            let number = node.number!
            if let exact = number.int64 { return .integer(exact) }
            return .integer(try Self.convert(number: number.text, to: type) { $0.integer() })
        case (.number, .number):
            let double = node.number!.double
            // 0 and infinity may be a lexeme a double cannot hold (1e-400, 1e400): then say so.
            if double.isFinite, double != 0 { return .number(double) }
            return .number(try Self.convert(number: node.number!.text, to: type) { $0.double() })
        case (.any, .number):
            let value = Value(json: node)
            if case .number(let double) = value, !double.isFinite || double == 0 {
                return .number(try Self.convert(number: node.number!.text, to: type) { $0.double() })
            }
            return value
        case (.any, .array), (.any, .object):
            // The value as it is, unless a number in it is one a double cannot hold (it would be null).
            try Self.checkNumbers(in: node, type: type)
            return Value(json: node)
        case (.string, .string), (.any, .string):
            return .string(node.stringValue!)
        case (.date, .string):
            if let utf8DateParser,
               let parsed = try node.withUnescapedStringUTF8({ utf8 throws(CoercionError) in
                   try date(parsedBy: { try utf8DateParser.transform(stringUTF8: utf8) })
               }) {
                return parsed
            }
            return try coerce(Value(json: node), to: type)
        case (.array(let element), .array):
            var items: [Value] = []
            items.reserveCapacity(node.count)
            for (index, item) in node.elements.enumerated() {
                do { items.append(try coerce(item, to: element)) } catch {
                    throw CoercionError(message: "element \(index): \(error.message)")
                }
            }
            return .array(items)
        default:
            return try coerce(Value(json: node), to: type)
        }
    }

    /// Coerces a value (already materialized or transformed).
    func coerce(_ value: Value, to type: AttributeType) throws(CoercionError) -> Value {
        if case .null = value { return .null }
        switch type {
        case .any:
            return value
        case .string:
            switch value {
            case .string: return value
            case .integer(let integer): return .string(String(integer))
            case .number(let number): return .string(Self.text(of: number))
            case .decimal(let decimal): return .string(decimal.description)
            case .bool(let bool): return .string(bool ? "true" : "false")
            case .date(let date): return .string(Self.iso8601(date))
            case .url(let url): return .string(url.absoluteString)
            default: throw mismatch(value, type)
            }
        case .integer:
            switch value {
            case .integer: return value
            case .bool(let bool): return .integer(bool ? 1 : 0)
            case .number(let number):
                guard number.rounded() == number, let exact = Int64(exactly: number) else { throw mismatch(value, type) }
                return .integer(exact)
            case .decimal(let decimal):
                guard let exact = Int64(decimal.description) else { throw mismatch(value, type) }
                return .integer(exact)
            case .string(let string):
                return .integer(try convert(string, to: type) { $0.integer() })
            default: throw mismatch(value, type)
            }
        case .number:
            switch value {
            case .number(let number):
                guard number.isFinite else { throw mismatch(value, type, NumberProblem.outOfDoubleRange) }
                return value
            case .integer(let integer): return .number(Double(integer))
            case .decimal(let decimal): return .number(decimal.nearestDouble)
            case .bool(let bool): return .number(bool ? 1 : 0)
            case .string(let string):
                return .number(try convert(string, to: type) { $0.double() })
            default: throw mismatch(value, type)
            }
        case .decimal:
            switch value {
            case .decimal: return value
            case .integer(let integer): return .decimal(Decimal(integer))
            case .number(let number):
                // The double's shortest text, so 0.1 is 0.1 (not 0.1000000000000000055511151231257827).
                guard number.isFinite else { throw mismatch(value, type, NumberProblem.outOfDecimalRange) }
                return .decimal(try Self.convert(number: Self.text(of: number), to: type) { $0.decimal() })
            case .string(let string):
                return .decimal(try convert(string, to: type) { $0.decimal() })
            default: throw mismatch(value, type)
            }
        case .boolean:
            switch value {
            case .bool: return value
            case .integer(let integer) where integer == 0 || integer == 1: return .bool(integer == 1)
            case .string(let string):
                switch string.trimming(where: Self.isWhitespace).lowercased() {
                case "true", "t", "yes", "y", "1": return .bool(true)
                case "false", "f", "no", "n", "0": return .bool(false)
                default: throw mismatch(value, type)
                }
            default: throw mismatch(value, type)
            }
        case .date:
            switch value {
            case .date: return value
            case .integer(let seconds): return .date(Date(timeIntervalSince1970: TimeInterval(seconds)))
            case .number(let seconds): return .date(Date(timeIntervalSince1970: seconds))
            case .decimal(let seconds): return .date(Date(timeIntervalSince1970: seconds.nearestDouble))
            case .string(let string):
                guard let dateParser else {
                    throw CoercionError(message: "cannot read date \"\(string)\": parsing date strings needs the dates plugin (add 'plugins: [dates]')")
                }
                return try date(parsedBy: { try dateParser.transform(value) })
            default: throw mismatch(value, type)
            }
        case .url:
            switch value {
            case .url: return value
            case .string(let string):
                guard !string.isEmpty, let url = URL(string: string) else { throw mismatch(value, type) }
                return .url(url)
            default: throw mismatch(value, type)
            }
        case .array(let element):
            // A single value where a list is expected is a list of one, as RestKit maps "Blue" to @[@"Blue"].
            guard case .array(let items) = value else { return .array([try coerce(value, to: element)]) }
            var coerced: [Value] = []
            coerced.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                do { coerced.append(try coerce(item, to: element)) } catch {
                    throw CoercionError(message: "element \(index): \(error.message)")
                }
            }
            return .array(coerced)
        }
    }

    /// What the dates plugin's parser made of a string, as a date (a number it returns is
    /// seconds since 1970; `null` stays null).
    private func date(parsedBy parse: () throws -> Value) throws(CoercionError) -> Value {
        let parsed: Value
        do { parsed = try parse() } catch { throw CoercionError(message: "\(error)") }
        guard case .date = parsed else { return parsed.isNull ? .null : try coerce(parsed, to: .date) }
        return parsed
    }

    private func mismatch(_ value: Value, _ type: AttributeType, _ problem: NumberProblem? = nil) -> CoercionError {
        CoercionError(message: "cannot convert \(value.kindName) \(ValueText.short(value)) to \(type)" + (problem.map { ": " + $0.reason } ?? ""))
    }

    /// A string read as a number by `read` (`NumberText`): the whole string must be one number.
    private func convert<Number>(_ string: String, to type: AttributeType,
                                 _ read: (NumberText) -> Result<Number, NumberProblem>) throws(CoercionError) -> Number {
        guard let number = NumberText(string) else { throw mismatch(.string(string), type) }
        switch read(number) {
        case .success(let value): return value
        case .failure(let problem): throw mismatch(.string(string), type, problem)
        }
    }

    /// Fails when a number in a container, at any depth, is one a double cannot hold (`1e400`),
    /// naming where (`element 2`, `member "x"`).
    private static func checkNumbers(in node: JSONNode, type: AttributeType) throws(CoercionError) {
        switch node.kind {
        case .number:
            let double = node.number!.double
            if !double.isFinite || double == 0 { _ = try convert(number: node.number!.text, to: .number) { $0.double() } }
        case .array:
            for (index, element) in node.elements.enumerated() where element.kind == .number || element.count > 0 {
                do { try checkNumbers(in: element, type: type) } catch {
                    throw CoercionError(message: "element \(index): \(error.message)")
                }
            }
        case .object:
            for member in node.members where member.value.kind == .number || member.value.count > 0 {
                do { try checkNumbers(in: member.value, type: type) } catch {
                    throw CoercionError(message: "member \"\(member.key)\": \(error.message)")
                }
            }
        default:
            return
        }
    }

    /// A number's text (a JSON lexeme, a double's shortest form) read by `read`.
    private static func convert<Number>(number text: String, to type: AttributeType,
                                        _ read: (NumberText) -> Result<Number, NumberProblem>) throws(CoercionError) -> Number {
        guard let number = NumberText(text) else {
            throw CoercionError(message: "cannot convert number \(NumberText.short(text)) to \(type)")
        }
        switch read(number) {
        case .success(let value): return value
        case .failure(let problem):
            throw CoercionError(message: "cannot convert number \(NumberText.short(text)) to \(type): \(problem.reason)")
        }
    }

    /// The whitespace ignored around a number or boolean in a string: ASCII spaces, tabs and line breaks.
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || ("\t"..."\r").contains(scalar) }

    /// A double as text: shortest round-trip form, integral values without ".0".
    static func text(of number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// ISO 8601 UTC with milliseconds when the date has a fraction.
    static func iso8601(_ date: Date) -> String { ISO8601Text.string(from: date.timeIntervalSince1970) }
}

let posix = Locale(identifier: "en_US_POSIX")

/// Short renderings of values for error messages.
enum ValueText {
    static func short(_ value: Value) -> String {
        switch value {
        case .string(let string):
            return string.utf8.count > 40 && string.count > 40
                ? "\"\(string.prefix(40))…\" (\(string.count) characters)" : "\"\(string)\""
        case .integer(let integer): return String(integer)
        case .number(let number): return Coercer.text(of: number)
        case .decimal(let decimal): return NumberText.short(decimal.description)
        case .bool(let bool): return bool ? "true" : "false"
        case .null: return "null"
        case .date(let date): return Coercer.iso8601(date)
        case .url(let url): return url.absoluteString
        case .array(let items): return "[\(items.count) items]"
        case .object(let members): return "{\(members.count) keys}"
        }
    }
}

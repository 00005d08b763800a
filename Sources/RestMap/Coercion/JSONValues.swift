import Foundation
import RestMapJSON

/// Exact numbers for collection operators.
enum JSONValues {
    /// The node's number as an exact decimal (collection operators compute exactly).
    static func decimal(_ value: Value) -> Decimal? {
        switch value {
        case .integer(let integer): return Decimal(integer)
        case .decimal(let decimal): return decimal
        case .number(let number): return Decimal(string: Coercer.text(of: number), locale: posix)
        case .string(let string): return Coercer.isNumeric(string) ? Decimal(string: string, locale: posix) : nil
        case .bool(let bool): return bool ? 1 : 0
        default: return nil
        }
    }
}

import FoundationEssentials
import RestMapJSON
import RestMapPluginKit

/// Exact numbers for collection operators.
enum JSONValues {
    /// The node's number as an exact decimal (collection operators compute exactly).
    static func decimal(_ value: Value) -> Decimal? {
        switch value {
        case .integer(let integer): return Decimal(integer)
        case .decimal(let decimal): return decimal
        case .number(let number): return number.isFinite ? Decimal(string: Coercer.text(of: number), locale: posix) : nil
        // A string counts when all of it is one number (`NumberText`): `"99 bottles"` does not.
        case .string(let string): return NumberText(string).flatMap { try? $0.decimal().get() }
        case .bool(let bool): return bool ? 1 : 0
        default: return nil
        }
    }
}

import CRestMapPluginABI
import Foundation
import RestMapPluginKit
import Testing

/// Values crossing the plugin ABI are read whole: a decimal's text is one number or an error.
@Suite struct ValueBridgeTests {
    /// The value a plugin hands back as decimal text.
    static func decimal(_ text: String) throws -> Value {
        var text = text
        return try text.withUTF8 { utf8 in
            var c = restmap_value()
            c.kind = RESTMAP_VALUE_DECIMAL.rawValue
            c.text = UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self)
            c.length = utf8.count
            return try CValueBridge.value(from: c)
        }
    }

    @Test(arguments: ["12abc", "0x10", "-", "", "1.5.2", "99 bottles"])
    func decimalTextThatIsNotAllOneNumberIsRefused(_ text: String) {
        #expect(throws: TransformerError.self, "\(text)") { try Self.decimal(text) }
    }

    @Test func decimalTextIsExact() throws {
        #expect(try Self.decimal("150.115") == .decimal(Decimal(string: "150.115")!))
        #expect(try Self.decimal("-0.5") == .decimal(Decimal(string: "-0.5")!))
    }

    @Test func aHugeDecimalIsRefusedWithItsTextCut() throws {
        let digits = String(repeating: "7", count: 10_000)
        let error = #expect(throws: TransformerError.self) { try Self.decimal(digits + "x") }
        #expect(String(describing: error).count < 200)
    }
}

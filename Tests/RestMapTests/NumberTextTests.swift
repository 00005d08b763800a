import Foundation
import RestMap
import RestMapSchema
import Testing

/// Numbers read from strings are read whole, wherever the core reads them: attribute coercion,
/// the store's typed filters (`Mapper.coerce`), schema defaults and collection operators.
@Suite struct NumberTextTests {
    static let schema = """
        restmap: 1
        entities:
          Item:
            identifiedBy: id
            attributes:
              id: { from: id, type: integer }
              price: { from: price, type: decimal }
              weight: { from: weight, type: number }
              fallback: { from: fallback, type: any, default: 0x10 }
              average: { from: "prices.@avg", type: decimal }
        responses: [{ entity: Item }]
        """

    @Test(arguments: ["0x10", "-", "99 bottles", "9223372036854775807xyz", "", "1_000", "1,5", "inf", "nan", "1e", "e5", "+-1"])
    func aStringThatIsNotAllOneNumberIsNoInteger(_ text: String) throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        #expect(throws: (any Error).self, "\(text)") { try mapper.coerce(.string(text), toAttribute: "id", of: "Item") }
        #expect(throws: (any Error).self, "\(text)") { try mapper.coerce(.string(text), toAttribute: "price", of: "Item") }
        #expect(throws: (any Error).self, "\(text)") { try mapper.coerce(.string(text), toAttribute: "weight", of: "Item") }
    }

    @Test(arguments: [(" 42 ", 42), ("+7", 7), ("-0", 0), ("1e3", 1000), ("1.0", 1), ("\t5\n", 5), ("007", 7)] as [(String, Int64)])
    func aWholeNumberStringIsAnInteger(_ text: String, _ expected: Int64) throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        #expect(try mapper.coerce(.string(text), toAttribute: "id", of: "Item") == .integer(expected))
    }

    @Test func decimalsKeepTheirDigitsOrSayWhyNot() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        #expect(try mapper.coerce(.string(".5"), toAttribute: "price", of: "Item") == .decimal(Decimal(string: "0.5")!))
        #expect(try mapper.coerce(.string("0e999"), toAttribute: "price", of: "Item") == .decimal(0))
        let digits38 = "1234567890.1234567890123456789012345678"
        #expect(try mapper.coerce(.string(digits38), toAttribute: "price", of: "Item") == .decimal(Decimal(string: digits38)!))
        #expect(throws: (any Error).self) { try mapper.coerce(.string(digits38 + "9"), toAttribute: "price", of: "Item") }
        #expect(throws: (any Error).self) { try mapper.coerce(.string("1e200"), toAttribute: "price", of: "Item") }
        #expect(throws: (any Error).self) { try mapper.coerce(.number(.infinity), toAttribute: "weight", of: "Item") }
    }

    @Test func defaultsAndCollectionOperatorsReadNumbersWhole() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let result = try mapper.map(Response(path: "/", body: #"[{"id": 1, "prices": ["1", "0x10", 3]}]"#))
        let item = try #require(result.records.first)
        // A default of 0x10 is text, not the number 0 that a prefix reading made of it.
        #expect(item.fallback.string == "0x10")
        // "0x10" is no number (a prefix reading made it 0): the average is of 1 and 3.
        #expect(item.average.decimal == 2)
    }
}

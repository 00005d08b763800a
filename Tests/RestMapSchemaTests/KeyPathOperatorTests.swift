import RestMapSchema
import Testing

/// `@` words in key paths: operators, near misses, look-alikes and JSON-LD keys.
@Suite("Key path @ words")
struct KeyPathOperatorTests {
    @Test("A word that reads like an operator is reported with the operator it resembles",
          arguments: [("transactions.@average.amount", "@avg"), ("prices.@maximum", "@max"), ("items.@counts", "@count"),
                      ("a.@minimum", "@min"), ("a.@distinctUnionOfObjects.b", "@distinct"), ("a.@total", "@sum")])
    func lookalike(_ text: String, _ resembled: String) {
        #expect(throws: MappingKeyPath.ParseError.self) { try MappingKeyPath.parse(text) }
        do {
            _ = try MappingKeyPath.parse(text)
        } catch {
            #expect(error.message.contains("(did you mean '\(resembled)'?"), "\(error.message)")
        }
    }

    @Test("JSON-LD keywords stay literal keys, even one letter from an operator", arguments: MappingKeyPath.jsonLDKeywords.sorted())
    func jsonLD(_ keyword: String) throws {
        let path = try MappingKeyPath.parse("\(keyword).name")
        #expect(path.segments.first == .key(keyword, index: nil))
    }

    @Test("An escaped look-alike is a literal key")
    func escaped() throws {
        let path = try MappingKeyPath.parse(#"transactions.\@average"#)
        #expect(path.segments.last == .key("@average", index: nil))
    }
}

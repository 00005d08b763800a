import Foundation
import Testing

/// Mapping rules through the built binary: keyed `@self` relationships, whole-string numbers, and
/// a schema of 100,000 attributes.
@Suite("restmap map: keyed levels, numbers, large schemas")
struct CoreMappingCommandTests {
    // MARK: Keyed levels as relationships

    @Test("A keyed @self relationship reads the representation's own keys as records")
    func keyedSelfRelationship() throws {
        let run = try CLI.map(schema: """
            restmap: 1
            entities:
              Group:
                attributes: [name]
                relationships:
                  values: { from: "@self", entity: Pref, many: true, keyedBy: key }
              Pref: { attributes: { key: key, value: "@self" } }
            responses: [{ keyPath: prefs, keyedBy: name, entity: Group }]
            """, body: #"{"prefs": {"editor": {"tabs": 4, "wrap.width": 80}, "empty": {}}}"#)
        #expect(run.status == 0, "\(run.errors)")
        let groups = try CLI.records(run.output)
        #expect(groups.map { $0["name"] as? String } == ["editor", "empty"])
        let values = try #require(groups[0]["values"] as? [[String: Any]])
        #expect(values.map { $0["key"] as? String } == ["tabs", "wrap.width"])
        #expect(values.map { $0["value"] as? Int } == [4, 80])
        #expect((groups[1]["values"] as? [Any])?.isEmpty == true)
    }

    // MARK: Numbers are whole strings

    static let items = """
        restmap: 1
        entities:
          Item:
            identifiedBy: id
            attributes: { id: { from: id, type: integer }, price: { from: price, type: decimal }, weight: { from: weight, type: number } }
        responses: [{ keyPath: items, entity: Item }]
        """

    @Test("Integer strings with garbage fail their record instead of merging under one id")
    func garbageIntegersFailTheirRecords() throws {
        let run = try CLI.map(schema: Self.items, body: """
            {"items": [{"id": "0x10"}, {"id": "-"}, {"id": "99 bottles"}, {"id": "9223372036854775807xyz"},
                       {"id": " 42 "}, {"id": "1e3"}, {"id": "99999999999999999999"}, {"id": "7.5"}]}
            """)
        #expect(run.status == 1)
        let items = try CLI.records(run.output)
        #expect(items.map { $0["id"] as? Int } == [42, 1000])
        for (index, text) in [(0, "0x10"), (1, "-"), (2, "99 bottles"), (3, "9223372036854775807xyz")] {
            #expect(run.errors.contains("items[\(index)].id: Item.id: cannot convert string \"\(text)\" to integer\n"), "\(run.errors)")
        }
        #expect(run.errors.contains(#"items[6].id: Item.id: cannot convert string "99999999999999999999" to integer: out of the 64-bit integer range"#))
        #expect(run.errors.contains(#"items[7].id: Item.id: cannot convert string "7.5" to integer: not a whole number"#))
    }

    @Test("Decimals past 38 significant digits and doubles past their range are reported, and huge numbers are cut")
    func lossyNumbersAreReported() throws {
        let digits = String(repeating: "7", count: 1_000_000)
        let run = try CLI.map(schema: Self.items, body: """
            {"items": [{"id": 1, "price": 1.23456789012345678901234567890123456789012},
                       {"id": 2, "weight": 1e400}, {"id": 3, "price": "12.50", "weight": "2.5"},
                       {"id": 4, "price": \(digits)}, {"id": 5, "weight": "1e400"}, {"id": 6, "price": "0x10"}]}
            """)
        #expect(run.status == 1)
        let items = try CLI.records(run.output)
        #expect(items.map { $0["id"] as? Int } == [3])
        #expect(run.output.contains(#""price":12.5"#))
        #expect(run.errors.contains("items[0].price: Item.price: cannot convert number 1.23456789012345678901234567890123456789… (42 digits) to decimal: 42 significant digits; a decimal keeps at most 38"))
        #expect(run.errors.contains("items[1].weight: Item.weight: cannot convert number 1e400 to number: out of the range of a double"))
        #expect(run.errors.contains("items[3].price: Item.price: cannot convert number \(String(repeating: "7", count: 40))… (1000000 digits) to decimal"))
        #expect(run.errors.contains(#"items[4].weight: Item.weight: cannot convert string "1e400" to number: out of the range of a double"#))
        #expect(run.errors.contains(#"items[5].price: Item.price: cannot convert string "0x10" to decimal"#))
        // The million digits are never echoed whole.
        #expect(run.errors.utf8.count < 2_000)
    }

    // MARK: Large schemas

    @Test("A schema of 100,000 attributes maps a representation holding all of them")
    func hundredThousandAttributes() throws {
        let count = 100_000
        var schema = "restmap: 1\nentities:\n  Wide:\n    attributes:\n"
        var body = "{"
        for index in 0..<count {
            schema += "      a\(index): { from: k\(index), type: integer }\n"
            body += (index == 0 ? "" : ",") + "\"k\(index)\":\(index * 3)"
        }
        schema += "responses: [{ entity: Wide }]\n"
        body += "}"
        let run = try CLI.map(schema: schema, body: body, arguments: ["--format", "ndjson"])
        #expect(run.status == 0, "\(run.errors.prefix(500))")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(record.count == count + 1)
        #expect(record["a0"] as? Int == 0)
        #expect(record["a12345"] as? Int == 37_035)
        #expect(record["a99999"] as? Int == 299_997)
        #expect((0..<count).allSatisfy { record["a\($0)"] as? Int == $0 * 3 })
    }
}

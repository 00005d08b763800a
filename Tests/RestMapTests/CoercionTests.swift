import Foundation
import RestMap
import Testing

@Suite struct CoercionTests {
    static let schema = """
    restmap: 1
    entities:
      User:
        identifiedBy: id
        attributes:
          id: { from: id, type: integer }
          name: { from: name, type: string }
          nickname: { from: nickname, default: anonymous }
          active: { from: active, type: boolean }
          score: { from: score, type: number }
          balance: { from: balance, type: decimal }
          label: { from: label, type: string }
          homepage: { from: homepage, type: url }
          seen: { from: seen, type: date }
          email: { from: email, required: true }
          tags: { from: tags, type: [integer] }
          shout: { from: name, transform: [trim, uppercase] }
    responses:
      - { entity: User }
    """

    func map(_ body: String) throws -> MappingResult {
        try Fixture.mapper(yaml: Self.schema).map(Response(path: "/users", body: body))
    }

    @Test func sixtyFourBitIntegersStayExact() throws {
        let result = try map(#"[{"id": "69726278940360707", "email": "a@b"}, {"id": 9223372036854775807, "email": "c@d"}]"#)
        #expect(result.records.map(\.id.int) == [69726278940360707, Int64.max])
    }

    @Test(arguments: [("T", true), ("yes", true), ("y", true), ("TRUE", true), ("1", true), ("f", false), ("No", false), ("false", false), ("0", false)])
    func booleanStrings(text: String, expected: Bool) throws {
        let result = try map(#"[{"id": 1, "email": "e", "active": "\#(text)"}]"#)
        #expect(result.records.first?.active.bool == expected)
    }

    /// A URL text repeated from record to record (one owner's avatar) is parsed once; texts that
    /// change, repeat after another, or are not URLs still give each record its own answer.
    @Test func repeatedURLTextsMapAsEachRecordSays() throws {
        let homepages = ["http://a.org/x", "http://a.org/x", "http://b.org/y", "http://a.org/x", "", "", "http://b.org/y"]
        let body = "[" + homepages.enumerated().map { #"{"id": \#($0.offset), "email": "e", "homepage": "\#($0.element)"}"# }.joined(separator: ",") + "]"
        let result = try map(body)
        // The empty texts are no URL: those two records fail, each with its error.
        #expect(result.records.map { $0.homepage.url?.absoluteString } == ["http://a.org/x", "http://a.org/x", "http://b.org/y", "http://a.org/x", "http://b.org/y"])
        #expect(result.errors.map(\.path) == ["[4].homepage", "[5].homepage"])
    }

    @Test func nullIsNotAbsent() throws {
        let result = try map(#"[{"id": 1, "email": "e", "nickname": null, "label": null}, {"id": 2, "email": "e"}]"#)
        let (explicitNull, absent) = (result.records[0], result.records[1])
        #expect(explicitNull.nickname.isNull)
        #expect(explicitNull.label.isNull)
        #expect(absent.nickname.string == "anonymous")
        #expect(absent.label.isAbsent)
    }

    @Test func numbersAndStringsConvertBothWays() throws {
        let result = try map(#"[{"id": "7", "email": "e", "score": "131.3", "balance": 5013.26, "label": 3.0, "homepage": "http://example.org/a", "seen": 1363198221, "tags": ["1", 2]}]"#)
        let user = try #require(result.records.first)
        #expect(user.score.double == 131.3)
        #expect(user.balance.decimal == Decimal(string: "5013.26"))
        #expect(user.label.string == "3")
        #expect(user.homepage.url?.host == "example.org")
        #expect(user.seen.date == Date(timeIntervalSince1970: 1363198221))
        #expect(user.tags.array == [.integer(1), .integer(2)])
    }

    @Test func transformerChainRunsBeforeCoercion() throws {
        let result = try map(#"[{"id": 1, "email": "e", "name": "  ada  "}]"#)
        #expect(result.records.first?.shout.string == "ADA")
        #expect(result.records.first?.name.string == "  ada  ")
    }

    @Test func badRecordIsReportedWithItsPositionAndOthersStillMap() throws {
        let result = try map(#"[{"id": 1, "email": "e"}, {"id": "twelve", "email": "e"}, {"id": 3}, {"id": 4, "email": "e", "tags": [1, "x"]}]"#)
        #expect(result.records.map(\.id.int) == [1])
        #expect(result.errors.count == 3)
        #expect(result.errors[0].path == "[1].id")
        #expect(result.errors[0].message.contains("cannot convert string \"twelve\" to integer"))
        #expect(result.errors[1].path == "[2].email")
        #expect(result.errors[1].message.contains("required attribute 'email'"))
        #expect(result.errors[2].path == "[3].tags")
        #expect(result.errors[2].message.contains("element 1"))
    }

    @Test func strictModeFailsTheWholeMapping() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        #expect(throws: MappingFailure.self) {
            try mapper.map(Response(path: "/users", body: #"[{"id": "x", "email": "e"}]"#), options: MappingOptions(strict: true))
        }
    }

    @Test func dateStringsWithoutTheDatesPluginAreAnErrorThatSaysWhatToAdd() throws {
        let result = try map(#"[{"id": 1, "email": "e", "seen": "2013-03-13T18:10:21Z"}]"#)
        #expect(result.records.isEmpty)
        #expect(result.errors.first?.message.contains("plugins: [dates]") == true)
    }
}

import Foundation
import RestMap
import RestMapPlugins
import RestMapPluginKit
import RestMapSchema
import RestMapDates
import Testing

@Suite struct DatesTests {
    /// 2013-03-13T18:10:21Z, the Stashboard example.
    let stashboard = Date(timeIntervalSince1970: 1_363_198_221)

    @Test(arguments: [
        "Wed, 13 Mar 2013 18:10:21 GMT",
        "Wednesday, 13-Mar-13 18:10:21 GMT",
        "Wed Mar 13 18:10:21 2013",
        "2013-03-13T18:10:21Z",
        "2013-03-13T18:10:21.000Z",
        "2013-03-13T18:10:21",
        "2013-03-13 18:10:21Z",
        "2013-03-13T19:10:21+01:00",
        "2013-03-13T13:10:21-0500",
        "2013-03-13T20:10:21+02",
        "1363198221",
        "1363198221000",
        "  2013-03-13T18:10:21Z ",
    ])
    func defaultChainReadsTheStashboardInstant(_ text: String) throws {
        #expect(try transform("dates.parse", .string(text)) == .date(stashboard))
    }

    @Test func fractionalSecondsAreKept() throws {
        let value = try transform("dates.parse", .string("2013-03-13T18:10:21.250Z"))
        #expect(value == .date(Date(timeIntervalSince1970: 1_363_198_221.25)))
    }

    @Test func dayOnlyFormsAreMidnightUTC() throws {
        let midnight = Date(timeIntervalSince1970: 1_363_132_800)
        #expect(try transform("dates.parse", .string("2013-03-13")) == .date(midnight))
        #expect(try transform("dates.parse", .string("03/13/2013")) == .date(midnight))
        #expect(try transform("dates.parse", .string("3/13/2013")) == .date(midnight))
    }

    @Test func unixNumbersUseTheMagnitudeRule() throws {
        #expect(try transform("dates.parse", .integer(1_363_198_221)) == .date(stashboard))
        #expect(try transform("dates.parse", .integer(1_363_198_221_000)) == .date(stashboard))
        #expect(try transform("dates.parse", .number(1_363_198_221.5)) == .date(Date(timeIntervalSince1970: 1_363_198_221.5)))
        #expect(try transform("dates.parse", .integer(99_999_999_999)) == .date(Date(timeIntervalSince1970: 99_999_999_999)))
        #expect(try transform("dates.parse", .integer(100_000_000_000)) == .date(Date(timeIntervalSince1970: 100_000_000)))
    }

    @Test func emptyAndNullAreNull() throws {
        #expect(try transform("dates.parse", .string("")) == .null)
        #expect(try transform("dates.parse", .null) == .null)
    }

    @Test func unparseableTextThrowsNamingTheValue() throws {
        #expect(throws: PluginError.transformerFailed(transformer: "dates.parse", message: "cannot read 'yesterday' as a date")) {
            try transform("dates.parse", .string("yesterday"))
        }
        for invalid in ["2013-02-30", "2013-13-01T00:00:00Z", "2013-03-13T24:00:00Z", "Wed, 32 Mar 2013 18:10:21 GMT"] {
            #expect(throws: PluginError.self) { try transform("dates.parse", .string(invalid)) }
        }
    }

    @Test func customFormatsAndZones() throws {
        let arguments: [String: Value] = [
            "formats": .array([.string("dd.MM.yyyy HH:mm")]), "timeZone": .string("Europe/Berlin"),
        ]
        #expect(try transform("dates.parse", .string("13.03.2013 19:10"), arguments: arguments) == .date(stashboard.addingTimeInterval(-21)))
        #expect(try reverse("dates.parse", .date(stashboard), arguments: arguments) == .string("13.03.2013 19:10"))
        // The default chain still applies after the formats.
        #expect(try transform("dates.parse", .string("2013-03-13T18:10:21Z"), arguments: arguments) == .date(stashboard))
        // Zone-less text is read in the zone.
        #expect(try transform("dates.parse", .string("2013-03-13T19:10:21"), arguments: ["timeZone": .string("Europe/Berlin")]) == .date(stashboard))
    }

    @Test func badArgumentsAreReported() {
        #expect(throws: PluginError.transformerFailed(transformer: "dates.parse", message: "argument 'timeZone': unknown time zone 'Mars/Olympus'")) {
            try transform("dates.parse", .null, arguments: ["timeZone": .string("Mars/Olympus")])
        }
        #expect(throws: PluginError.transformerFailed(transformer: "dates.format", message: "missing required argument 'format'")) {
            try transform("dates.format", .null)
        }
    }

    @Test func reverseWritesISO8601UTC() throws {
        #expect(try reverse("dates.parse", .date(stashboard)) == .string("2013-03-13T18:10:21Z"))
        #expect(try reverse("dates.parse", .date(stashboard.addingTimeInterval(0.5))) == .string("2013-03-13T18:10:21.500Z"))
        #expect(try reverse("dates.iso8601", .date(stashboard)) == .string("2013-03-13T18:10:21Z"))
    }

    @Test func shortcuts() throws {
        #expect(try transform("dates.rfc1123", .string("Wed, 13 Mar 2013 18:10:21 GMT")) == .date(stashboard))
        #expect(try reverse("dates.rfc1123", .date(stashboard)) == .string("Wed, 13 Mar 2013 18:10:21 GMT"))
        #expect(throws: PluginError.self) { try transform("dates.rfc1123", .string("2013-03-13T18:10:21Z")) }
        #expect(try transform("dates.iso8601", .string("2013-03-13T18:10:21Z")) == .date(stashboard))
        #expect(try transform("dates.unix", .string("1363198221")) == .date(stashboard))
        #expect(try transform("dates.unix", .integer(1_363_198_221), arguments: ["unit": .string("milliseconds")]) == .date(Date(timeIntervalSince1970: 1_363_198.221)))
        #expect(try reverse("dates.unix", .date(stashboard)) == .integer(1_363_198_221))
        #expect(try reverse("dates.unix", .date(stashboard), arguments: ["unit": .string("milliseconds")]) == .integer(1_363_198_221_000))
    }

    @Test func formatWritesPatterns() throws {
        let arguments: [String: Value] = ["format": .string("yyyy-MM-dd HH:mm"), "timeZone": .string("America/New_York")]
        #expect(try reverse("dates.format", .date(stashboard), arguments: arguments) == .string("2013-03-13 14:10"))
        #expect(try transform("dates.format", .string("Wed, 13 Mar 2013 18:10:21 GMT"), arguments: arguments) == .string("2013-03-13 14:10"))
    }

    @Test("Patterns and zone-less text are read and written in UTC by default, as with timeZone UTC or GMT",
          arguments: [[:], ["timeZone": Value.string("UTC")], ["timeZone": .string("GMT")]])
    func utcByDefault(_ zone: [String: Value]) throws {
        let format = zone.merging(["format": .string("yyyy-MM-dd HH:mm:ss")]) { $1 }
        #expect(try reverse("dates.format", .date(stashboard), arguments: format) == .string("2013-03-13 18:10:21"))
        #expect(try transform("dates.parse", .string("13.03.2013 18:10:21"), arguments: zone.merging(["formats": .array([.string("dd.MM.yyyy HH:mm:ss")])]) { $1 })
            == .date(stashboard))
        #expect(try transform("dates.parse", .string("2013-03-13T18:10:21"), arguments: zone) == .date(stashboard))
        #expect(try transform("dates.parse", .string("03/13/2013"), arguments: zone) == .date(Date(timeIntervalSince1970: 1_363_132_800)))
    }

    @Test func handWrittenParserAgreesWithISO8601DateFormatter() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        for seconds in stride(from: -2_000_000_000.0, to: 4_000_000_000, by: 7_654_321) {
            let text = formatter.string(from: Date(timeIntervalSince1970: seconds))
            let parsed = try #require(ISO8601Parser.parse(text), "\(text)")
            #expect(parsed.utcSeconds == seconds, "\(text)")
            #expect(ISO8601Text.string(from: seconds) == text)
        }
    }
}

@Suite struct ISO8601WritingTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (1.25, "1970-01-01T00:00:01.250Z"), (-0.001, "1969-12-31T23:59:59.999Z"),
        (1_363_198_221.007, "2013-03-13T18:10:21.007Z"), (-62_167_219_200, "0000-01-01T00:00:00Z"),
        (-62_167_219_200 - 86_400, "-0001-12-31T00:00:00Z"), (253_402_300_799, "9999-12-31T23:59:59Z"),
        (253_402_300_800, "10000-01-01T00:00:00Z"),
    ] as [(Double, String)])
    func writesUTCWithMillisecondsOnlyWhenThere(_ seconds: Double, _ text: String) {
        #expect(ISO8601Text.string(from: seconds) == text)
        var bytes = Array("x".utf8)
        ISO8601Text.append(seconds, to: &bytes)
        #expect(bytes == Array(("x" + text).utf8))
    }
}

/// A loaded transformer reads a string's bytes in place (as the mapper passes date strings from a
/// body) with the same results and errors as the same string passed as a value.
@Suite struct LoadedStringBytesTests {
    @Test(arguments: ["2013-03-13T18:10:21Z", "Wed, 13 Mar 2013 18:10:21 GMT", "1363198221", "", "not a date", "2013-13-45T99:00:00Z"])
    func bytesInPlaceMatchTheStringValue(_ text: String) throws {
        let parse = try #require(try BuiltPlugins.registry().transformer(named: "dates.parse")).make([:])
        let inPlace = try #require(parse as? any UTF8StringTransformer)
        var bytes = text
        let viaBytes = bytes.withUTF8 { utf8 in Result { try inPlace.transform(stringUTF8: utf8) } }
        let viaValue = Result { try parse.transform(.string(text)) }
        #expect(String(describing: viaBytes) == String(describing: viaValue))
    }

    @Test func datesMapTheSameWithAndWithoutEscapes() throws {
        let yaml = """
            restmap: 1
            plugins: [dates]
            entities:
              Event:
                attributes:
                  at: { from: at, type: date }
            responses:
              - { entity: Event }
            """
        let loaded = Schema.validate(bytes: Array(yaml.utf8), file: "inline.yaml")
        let mapper = try Mapper(schema: try #require(loaded.schema), plugins: try BuiltPlugins.registry())
        let body = #"[{"at": "2013-03-13T18:10:21Z"}, {"at": "2013-03-13T18:10:21\u005A"}, {"at": "yesterday"}]"#
        let result = try mapper.map(Response(path: "/events", body: body))
        #expect(result.records.map(\.at.date) == [Date(timeIntervalSince1970: 1_363_198_221), Date(timeIntervalSince1970: 1_363_198_221)])
        #expect(result.errors.map(\.path) == ["[2].at"])
        #expect(result.errors.first?.message.contains("yesterday") == true)
    }
}

@Suite struct HTTPDateWritingTests {
    @Test(arguments: [0.0, 1_363_198_221, -86_401, 951_782_400, 4_102_444_799])
    func rfc1123RoundTrips(_ seconds: Double) throws {
        let text = HTTPDateParser.rfc1123String(fromSeconds: seconds)
        let parsed = try #require(text.withCString { pointer in
            HTTPDateParser.parseRFC1123(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: text.utf8.count))
        })
        #expect(parsed.utcSeconds == seconds, "\(text)")
    }

    @Test func knownWeekdays() {
        #expect(HTTPDateParser.rfc1123String(fromSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateParser.rfc1123String(fromSeconds: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDateParser.rfc1123String(fromSeconds: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }
}

import Foundation
import RestMapPluginKit
import Testing

/// `HTTPDate`, the HTTP-date codec the sample server, the client, `restmap init` and the dates
/// plugin share.
@Suite struct HTTPDateTests {
    /// RFC 9110's example instant, 1994-11-06T08:49:37Z.
    static let example: Int64 = 784_111_777

    @Test func writesIMFFixdate() {
        #expect(HTTPDate.string(fromSeconds: Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.string(fromSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.string(fromSeconds: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.string(fromSeconds: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test(arguments: [Int64(0), 784_111_777, 1_363_198_221, -86_401, 951_782_400, 4_102_444_799, -62_135_596_800, 253_402_300_799])
    func roundTrips(_ seconds: Int64) throws {
        let text = HTTPDate.string(fromSeconds: seconds)
        #expect(text.utf8.count == 29)
        #expect(HTTPDate.seconds(from: text) == seconds, "\(text)")
        #expect(HTTPDate.seconds(from: text, forms: .imfFixdate) == seconds, "\(text)")
        #expect(HTTPDate.date(from: text) == Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test func yearsWithoutAnHTTPDateAreWrittenWholeAndNotReadBack() {
        let year10000 = HTTPDate.string(fromSeconds: 253_402_300_800)
        #expect(year10000 == "Sat, 01 Jan 10000 00:00:00 GMT")
        #expect(HTTPDate.seconds(from: year10000) == nil)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Sun Nov 06 08:49:37 1994",
    ])
    func readsTheThreeForms(_ text: String) {
        #expect(HTTPDate.seconds(from: text) == Self.example)
        #expect(HTTPDate.seconds(from: text, syntax: .lenient) == Self.example)
    }

    @Test func formsLimitWhatIsRead() {
        #expect(HTTPDate.seconds(from: "Sunday, 06-Nov-94 08:49:37 GMT", forms: .imfFixdate) == nil)
        #expect(HTTPDate.seconds(from: "Sun Nov  6 08:49:37 1994", forms: [.imfFixdate, .rfc850]) == nil)
        #expect(HTTPDate.seconds(from: "Sun, 06 Nov 1994 08:49:37 GMT", forms: .asctime) == nil)
        #expect(HTTPDate.seconds(from: "Sun Nov  6 08:49:37 1994", forms: .asctime) == Self.example)
    }

    @Test func rfc850YearsBelow70AreThisCentury() {
        #expect(HTTPDate.seconds(from: "Wednesday, 13-Mar-13 18:10:21 GMT") == 1_363_198_221)
        #expect(HTTPDate.seconds(from: "Thursday, 01-Jan-70 00:00:00 GMT") == 0)
    }

    @Test(arguments: [
        "sun, 06 nov 1994 08:49:37 gmt",         // names in another case
        "Sun,  06 Nov 1994 08:49:37 GMT",        // two spaces
        "Sun, 6 Nov 1994 08:49:37 GMT",          // one-digit day
        "06 Nov 1994 08:49:37 GMT",              // no weekday
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37 Z",
        "Sun, 06 Nov 1994 09:49:37 +0100",
        "SUNDAY, 06-NOV-94 03:49:37 -0500",
        "Sun Nov 6 08:49:37 1994",               // asctime without the padding space
    ])
    func lenientSyntaxReadsWhatSendersWrite(_ text: String) {
        #expect(HTTPDate.seconds(from: text) == nil, "strict: \(text)")
        #expect(HTTPDate.seconds(from: text, syntax: .lenient) == Self.example, "lenient: \(text)")
    }

    @Test(arguments: [
        "",
        " Sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ",
        "Sun, 06 Nov 1994 08:49:37",
        "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Noe 1994 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",         // November has 30 days
        "Sat, 29 Feb 2100 00:00:00 GMT",         // 2100 is no leap year
        "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:37 GMT",
        "Sun, 06 Nov 1994 08:49:60 GMT",
        "Sun, 06 Nov 1994 08:49:37 PST",
        "Sun, 06 Nov 1994 08:49:37 +2400",
        "Sunday, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT",
        "Sundae, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 94",
        "Sun Nov  6 08:49:37 1994 GMT",
        "1994-11-06T08:49:37Z",
        "784111777",
        "not a date",
    ])
    func refusesWhatIsNoHTTPDate(_ text: String) {
        #expect(HTTPDate.seconds(from: text) == nil, "strict: \(text)")
        #expect(HTTPDate.seconds(from: text, syntax: .lenient) == nil, "lenient: \(text)")
        #expect(HTTPDate.date(from: text) == nil)
    }
}

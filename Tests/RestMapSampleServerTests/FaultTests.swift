import Foundation
import RestMapJSON
import RestMapTestSupport
import Testing

@Suite("Faults on request")
struct FaultTests {
    @Test func failCountsPerFaultKeyAndThenServes() async throws {
        try await SampleServer.with { server async throws in
            for _ in 0..<2 {
                let failed = try await server.send("GET", "/accounts.json?fail=2&fault-id=a")
                #expect(failed.status == 503)
                #expect(try failed.json()["message"]?.stringValue == "fault: injected 503")
            }
            #expect(try await server.send("GET", "/accounts.json?fail=2&fault-id=b&status=502").status == 502)
            #expect(try await server.send("GET", "/accounts.json?fail=2&fault-id=a").status == 200)
            #expect(try await server.send("GET", "/accounts.json?fail=2&fault-id=b&status=502").status == 502)
            #expect(try await server.send("GET", "/accounts.json?fail=2&fault-id=b&status=502").status == 200)
        }
    }

    @Test func faultsAlsoComeAsHeaders() async throws {
        try await SampleServer.with { server async throws in
            let headers = ["X-Fault-Fail": "1", "X-Fault-Status": "504", "X-Fault-Fault-Id": "headers"]
            #expect(try await server.send("GET", "/task_list", headers: headers).status == 504)
            #expect(try await server.send("GET", "/task_list", headers: headers).status == 200)
            let unknown = try await server.send("GET", "/task_list", headers: ["X-Fault-Explode": "1"])
            #expect(unknown.status == 400)
            #expect(try unknown.json()["error"]?.stringValue?.contains("X-Fault-Explode") == true)
            #expect(try await server.send("GET", "/task_list?delay=30001").status == 400)
        }
    }

    @Test func retryAfterInSecondsAndAsAnHTTPDate() async throws {
        try await SampleServer.with { server async throws in
            let seconds = try await server.send("GET", "/page/articles?fail=1&status=429&retry-after=7&fault-id=s")
            #expect(seconds.status == 429)
            #expect(seconds.header("Retry-After") == "7")
            let dated = try await server.send("GET", "/page/articles?fail=1&status=429&retry-after-date=5&fault-id=d")
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            #expect(dated.status == 429)
            let retryAt = try #require(dated.header("Retry-After").flatMap(formatter.date(from:)))
            let countedFrom = try #require(dated.header("X-Retry-After-Base").flatMap(formatter.date(from:)))
            #expect(retryAt.timeIntervalSince(countedFrom) == 5)
            #expect(dated.header("Date").flatMap(formatter.date(from:)) != nil)
        }
    }

    @Test func faultParametersDoNotReachTheRoute() async throws {
        try await SampleServer.with { server async throws in
            let body = try await server.json("GET", "/offset/articles?offset=10&limit=5&status=404&delay=1&fault-id=x")
            #expect(body["articles"]?.column("id") == ["11", "12", "13", "14", "15"])
        }
    }

    @Test func redirectToAGivenURL() async throws {
        try await SampleServer.with { server async throws in
            let target = "http://127.0.0.1:\(server.port)/accounts.json"
            let found = try await server.send("GET", "/page/articles?redirect=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(found.status == 302)
            #expect(found.header("Location") == target)
            #expect(try await server.send("GET", "/page/articles?redirect=/accounts.json&redirect-status=307").status == 307)
        }
    }

    @Test func closeMidBodySendsHalfOfTheAnnouncedLength() async throws {
        try await SampleServer.with { server async throws in
            let whole = try await server.send("GET", "/users/octocat/starred")
            let cut = try await server.send("GET", "/users/octocat/starred?close=1")
            #expect(cut.status == 200)
            #expect(cut.header("Content-Length") == String(whole.body.count))
            #expect(!cut.complete)
            #expect(cut.body == Array(whole.body.prefix(whole.body.count / 2)))
        }
    }

    @Test func malformedJSONAndWrongContentType() async throws {
        try await SampleServer.with { server async throws in
            let malformed = try await server.send("GET", "/api/v1/services?malformed=1")
            #expect(malformed.status == 200)
            #expect(malformed.header("Content-Type") == "application/json; charset=utf-8")
            #expect(throws: JSONParseError.self) { try malformed.json() }
            let html = try await server.send("GET", "/api/v1/services?content-type=text%2Fhtml")
            #expect(html.header("Content-Type") == "text/html")
            #expect(try html.json()["services"]?.count == 3)
        }
    }

    @Test func gzipBodyInflatesToThePlainBody() async throws {
        try await SampleServer.with { server async throws in
            let plain = try await server.send("GET", "/task_list")
            let compressed = try await server.send("GET", "/task_list?gzip=1")
            #expect(compressed.header("Content-Encoding") == "gzip")
            #expect(compressed.body.prefix(2).elementsEqual([0x1f, 0x8b]))
            #expect(try await Gunzip.inflate(compressed.body) == plain.body)
        }
    }

    @Test func gzipBombIsSmallOnTheWireAndHugeInflated() async throws {
        try await SampleServer.with { server async throws in
            let count = 4 << 20
            let bomb = try await server.send("GET", "/accounts.json?gzip-bomb=\(count)")
            #expect(bomb.header("Content-Encoding") == "gzip")
            #expect(bomb.header("ETag") == nil)
            #expect(bomb.body.count < count / 100)
            let inflated = try await Gunzip.inflate(bomb.body)   // gzip checks the CRC and the length
            #expect(inflated.count == count)
            #expect(inflated.allSatisfy { $0 == 0 })
        }
    }

    @Test func oversizedBodyWithAndWithoutALength() async throws {
        try await SampleServer.with { server async throws in
            let sized = try await server.send("GET", "/accounts.json?oversize=100000")
            #expect(sized.header("Content-Length") == "100000")
            #expect(sized.complete)
            #expect(sized.body.count == 100_000)
            #expect(try sized.json()[0]?.stringValue?.count == 99_996)
            let chunked = try await server.send("GET", "/accounts.json?oversize=70000&oversize-chunked=1")
            #expect(chunked.header("Content-Length") == nil)
            #expect(chunked.header("Transfer-Encoding") == "chunked")
            #expect(chunked.complete)
            #expect(chunked.body.count == 70_000)
        }
    }

    @Test func trickledBodyArrivesWhole() async throws {
        try await SampleServer.with { server async throws in
            let plain = try await server.send("GET", "/api/v1/services")
            let trickled = try await server.send("GET", "/api/v1/services?trickle=1&trickle-bytes=256")
            #expect(trickled.complete)
            #expect(trickled.body == plain.body)
        }
    }
}

/// Inflates with the system's `gzip -dc`, a decoder nobody in this project wrote.
enum Gunzip {
    static func inflate(_ bytes: [UInt8]) async throws -> [UInt8] {
        try await offPool { try run(bytes) }
    }

    private static func run(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let writer = Thread {
            input.fileHandleForWriting.write(Data(bytes))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let inflated = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("gzip -dc failed with status \(process.terminationStatus)") }
        return Array(inflated)
    }
}

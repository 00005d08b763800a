import Foundation
import RestMapTestSupport
import Testing

@Suite("Starting the server")
struct ServerStartTests {
    @Test func portZeroPrintsOneListeningLineAndServes() async throws {
        try await SampleServer.with { server async throws in
            #expect(server.port > 0)
            let reply = try await server.send("GET", "/accounts.json")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
            let account = try reply.json()
            #expect(account["name"]?.stringValue == "Personal Checking")
            // The bank sample is served as written: 325.00 keeps its two decimals.
            #expect(reply.text.contains("325.00"))
        }
    }

    @Test func nonLoopbackHostIsRefusedWithoutAllowRemote() async throws {
        let exit = try await SampleServer.runToExit(["--host", "0.0.0.0", "--port", "0"])
        #expect(exit.firstLine == nil)
        #expect(exit.status == 64)
        #expect(exit.errors.contains("--host 0.0.0.0 is not a loopback address"))
    }

    @Test func missingDataFolderIsAnErrorNamingTheFile() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-samples-\(UUID().uuidString)")
        let exit = try await SampleServer.runToExit(["--port", "0", "--data", missing.path])
        #expect(exit.firstLine == nil)
        #expect(exit.status == 1)
        #expect(exit.errors.contains(missing.appendingPathComponent("mongohq").path))
    }

    @Test func unknownPathsAnswer404AndOtherMethods405() async throws {
        try await SampleServer.with { server async throws in
            let missing = try await server.send("GET", "/no/such/path")
            #expect(missing.status == 404)
            #expect(try missing.json()["message"]?.stringValue == "Not Found")
            #expect(try await server.send("DELETE", "/task_list").status == 405)
        }
    }

    @Test func verboseLogsOneLinePerRequestWithoutTheQuery() async throws {
        let server = try await SampleServer.start(["--verbose"])
        let reply = try await server.send("GET", "/databases?_apikey=sample-api-key")
        #expect(reply.status == 200)
        let log = await offPool { server.stop() }
        #expect(log.contains("GET /databases 200"))
        #expect(!log.contains("sample-api-key"))
    }
}

@Suite("Received-request log")
struct RequestLogTests {
    @Test func listsRequestsOldestFirstWithCredentialsRedacted() async throws {
        try await SampleServer.with { server async throws in
            _ = try await server.send("GET", "/user?per_page=2", headers: ["Authorization": "Bearer sample-token"])
            _ = try await server.send("GET", "/auth/query/articles?api_key=sample-api-key&page=2")
            let log = try await server.json("GET", "/_requests")
            #expect(log.column("method") == ["GET", "GET"])
            #expect(log.column("target") == ["/user?per_page=2", "/auth/query/articles?api_key=%3Credacted%3E&page=2"])
            #expect(log[0]?["headers"]?["authorization"]?.stringValue == "<redacted>")
            #expect(log[0]?["headers"]?["host"]?.stringValue == "127.0.0.1:\(server.port)")
            let text = try await server.send("GET", "/_requests").text
            #expect(!text.contains("sample-token"))
            #expect(!text.contains("sample-api-key"))
            #expect(try await server.send("DELETE", "/_requests").status == 204)
            #expect(try await server.json("GET", "/_requests").count == 0)
        }
    }
}

@Suite("Waiting for received requests")
struct RequestLogWaitTests {
    @Test func waitForAnswersOnceTheLogHoldsThatManyRequests() async throws {
        try await SampleServer.with { server async throws in
            _ = try await server.send("GET", "/user")
            async let waited = server.json("GET", "/_requests?wait-for=4")
            for number in 1...3 { _ = try await server.send("GET", "/task_list?n=\(number)") }
            #expect(try await waited.column("target") == ["/user", "/task_list?n=1", "/task_list?n=2", "/task_list?n=3"])
        }
    }

    @Test func waitForAlreadyMetAnswersAtOnce() async throws {
        try await SampleServer.with { server async throws in
            _ = try await server.send("GET", "/user")
            #expect(try await server.json("GET", "/_requests?wait-for=1").column("target") == ["/user"])
        }
    }

    @Test(arguments: ["0", "1001", "soon"])
    func waitForOutOfRangeIsAnErrorNamingIt(_ value: String) async throws {
        try await SampleServer.with { server async throws in
            let reply = try await server.send("GET", "/_requests?wait-for=\(value)")
            #expect(reply.status == 400)
            #expect(try reply.json()["error"]?.stringValue?.contains("wait-for") == true)
            #expect(try reply.json()["error"]?.stringValue?.contains("'\(value)'") == true)
        }
    }
}

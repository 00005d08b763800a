import Foundation
import Testing

@Suite("Starting the server")
struct ServerStartTests {
    @Test func portZeroPrintsOneListeningLineAndServes() throws {
        try SampleServer.with { server throws in
            #expect(server.port > 0)
            let reply = try server.send("GET", "/accounts.json")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json; charset=utf-8")
            let account = try reply.json()
            #expect(account["name"]?.stringValue == "Personal Checking")
            // The bank sample is served as written: 325.00 keeps its two decimals.
            #expect(reply.text.contains("325.00"))
        }
    }

    @Test func nonLoopbackHostIsRefusedWithoutAllowRemote() throws {
        let run = try SampleServer.launch(["--host", "0.0.0.0", "--port", "0"])
        #expect(SampleServer.firstLine(of: run.output, timeout: 30) == nil)
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus != 0)
        let errors = try String(contentsOf: run.errorLog, encoding: .utf8)
        #expect(errors.contains("--host 0.0.0.0 is not a loopback address"))
        try? FileManager.default.removeItem(at: run.errorLog)
    }

    @Test func missingDataFolderIsAnErrorNamingTheFile() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-samples-\(UUID().uuidString)")
        let run = try SampleServer.launch(["--port", "0", "--data", missing.path])
        run.process.waitUntilExit()
        #expect(run.process.terminationStatus != 0)
        let errors = try String(contentsOf: run.errorLog, encoding: .utf8)
        #expect(errors.contains(missing.appendingPathComponent("mongohq").path))
        try? FileManager.default.removeItem(at: run.errorLog)
    }

    @Test func unknownPathsAnswer404AndOtherMethods405() throws {
        try SampleServer.with { server throws in
            let missing = try server.send("GET", "/no/such/path")
            #expect(missing.status == 404)
            #expect(try missing.json()["message"]?.stringValue == "Not Found")
            #expect(try server.send("DELETE", "/task_list").status == 405)
        }
    }

    @Test func verboseLogsOneLinePerRequestWithoutTheQuery() throws {
        let server = try SampleServer(["--verbose"])
        let reply = try server.send("GET", "/databases?_apikey=sample-api-key")
        #expect(reply.status == 200)
        let log = server.stop()
        #expect(log.contains("GET /databases 200"))
        #expect(!log.contains("sample-api-key"))
    }
}

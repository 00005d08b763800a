import RestMapTestSupport
import Testing

@Suite("Stashboard services and events")
struct StashboardTests {
    @Test func servicesUnderTheAPIPrefix() async throws {
        try await SampleServer.with { server async throws in
            let services = try #require(try await server.json("GET", "/api/v1/services")["services"])
            #expect(services.column("id") == ["aaron", "alex", "arrow"])
            #expect(services[0]?["current-event"]?["status"]?["name"]?.stringValue == "Up")
            #expect(try await server.json("GET", "/api/v1/services/alex")["name"]?.stringValue == "Alex")
            let missing = try await server.json("GET", "/api/v1/services/nobody", status: 404)
            #expect(missing["message"]?.stringValue == "Service nobody not found")
        }
    }

    @Test func eventsOfAServiceUnderTheEventsKey() async throws {
        try await SampleServer.with { server async throws in
            let aaron = try #require(try await server.json("GET", "/api/v1/services/aaron/events")["events"])
            #expect(aaron.column("message") == ["All systems operational.", "Investigating slow connections to aaron."])
            #expect(aaron[1]?["status"]?["level"]?.stringValue == "WARNING")
            let arrow = try #require(try await server.json("GET", "/api/v1/services/arrow/events")["events"])
            #expect(arrow.column("message") == ["All databases accessible and operating normally."])
        }
    }
}

import Testing

@Suite("Stashboard services and events")
struct StashboardTests {
    @Test func servicesUnderTheAPIPrefix() throws {
        try SampleServer.with { server throws in
            let services = try #require(try server.json("GET", "/api/v1/services")["services"])
            #expect(services.column("id") == ["aaron", "alex", "arrow"])
            #expect(services[0]?["current-event"]?["status"]?["name"]?.stringValue == "Up")
            #expect(try server.json("GET", "/api/v1/services/alex")["name"]?.stringValue == "Alex")
            let missing = try server.json("GET", "/api/v1/services/nobody", status: 404)
            #expect(missing["message"]?.stringValue == "Service nobody not found")
        }
    }

    @Test func eventsOfAServiceUnderTheEventsKey() throws {
        try SampleServer.with { server throws in
            let aaron = try #require(try server.json("GET", "/api/v1/services/aaron/events")["events"])
            #expect(aaron.column("message") == ["All systems operational.", "Investigating slow connections to aaron."])
            #expect(aaron[1]?["status"]?["level"]?.stringValue == "WARNING")
            let arrow = try #require(try server.json("GET", "/api/v1/services/arrow/events")["events"])
            #expect(arrow.column("message") == ["All databases accessible and operating normally."])
        }
    }
}

import Hummingbird

/// Stashboard services and events (Schemas/stashboard.yaml), read-only, under `/api/v1`.
struct StashboardAPI: Sendable {
    private let services: [JSONValue]
    private let aaronEvents: JSONValue

    init(data: SampleData) throws(SampleData.LoadError) {
        guard let services = try data.json("stashboard/services.json")["services"]?.arrayValue else {
            throw SampleData.LoadError(description: "\(data.folder.path)/stashboard/services.json: expected {\"services\": [...]}")
        }
        self.services = services
        aaronEvents = try data.json("stashboard/aaron_events.json")
    }

    func register(in table: inout RouteTable) {
        table.add(.get, "/api/v1/services") { _ in .json(.object(["services": .array(services)])) }
        table.add(.get, "/api/v1/services/:id") { request in
            service(request).map { .json($0) } ?? notFound(request)
        }
        table.add(.get, "/api/v1/services/:id/events") { request in
            guard let service = service(request) else { return notFound(request) }
            if request.parameter("id") == "aaron" { return .json(aaronEvents) }
            return .json(.object(["events": .array(service["current-event"].map { [$0] } ?? [])]))
        }
    }

    private func service(_ request: RouteRequest) -> JSONValue? {
        services.first { $0["id"]?.stringValue == request.parameter("id") }
    }

    private func notFound(_ request: RouteRequest) -> Reply {
        .json(.object(["error": .bool(true), "message": .string("Service \(request.parameter("id")) not found")]), status: .notFound)
    }
}

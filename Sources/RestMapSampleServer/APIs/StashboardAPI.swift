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

    func register(on router: some RouterMethods<SampleRequestContext>) {
        let api = router.group("/api/v1")
        api.on(.get, "/services") { _ in .json(.object(["services": .array(services)])) }
        api.on(.get, "/services/:id") { request in
            service(request).map { .json($0) } ?? notFound(request)
        }
        api.on(.get, "/services/:id/events") { request in
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

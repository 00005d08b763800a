import Hummingbird

/// The requests this process received, oldest first (`GET /_requests`, cleared by
/// `DELETE /_requests`), so a test can check what reached a server. Credential values are
/// redacted; the log keeps the last 1,000 requests.
actor RequestLog {
    static let path = "/_requests"
    static let capacity = 1_000
    static let redacted = "<redacted>"
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key", "x-api-token", "mongohq-api-token"]
    static let secretQueryNames: Set<String> = ["_apikey", "api_key", "api_token", "password"]

    private var entries: [JSONValue] = []

    /// Records a request: method, target (path and query) and headers with lower-case names
    /// (`host` from the request's authority).
    func record(method: String, path: String, query: [(name: String, value: String)], authority: String?, headers: HTTPFields) {
        let pairs = query.map { (name: $0.name, value: Self.secretQueryNames.contains($0.name) ? Self.redacted : $0.value) }
        var fields: [JSONValue.Member] = authority.map { [JSONValue.Member(key: "host", value: .string($0))] } ?? []
        for field in headers {
            let name = field.name.canonicalName
            let value = Self.secretHeaders.contains(name) ? Self.redacted : field.value
            fields.append(JSONValue.Member(key: name, value: .string(value)))
        }
        if entries.count >= Self.capacity { entries.removeFirst(entries.count - Self.capacity + 1) }
        entries.append(.object([
            "method": .string(method),
            "target": .string(pairs.isEmpty ? path : path + "?" + FormEncoding.join(pairs)),
            "headers": .object(fields),
        ]))
    }

    nonisolated func register(in table: inout RouteTable) {
        table.add(.get, Self.path) { _ in await .json(.array(self.entries)) }
        table.add(.delete, Self.path) { _ in
            await self.clear()
            return .noContent
        }
    }

    private func clear() { entries.removeAll() }
}

import Foundation
import RestMap
import RestMapPluginLoader
import RestMapClient
import RestMapSchema
import RestMapTestSupport
import Testing

/// Schemas for the tests.
enum TestSchemas {
    /// A mapper from YAML text.
    static func mapper(_ yaml: String) throws -> Mapper {
        let loaded = Schema.validate(bytes: Array(yaml.utf8), file: "test.yaml")
        let schema = try #require(loaded.schema, "\(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        return try Mapper(schema: schema)
    }

    /// A mapper of a schema file of the repository (`Schemas/github.yaml`), with its plugins.
    static func repositoryMapper(_ path: String) throws -> Mapper {
        try Schema.load(contentsOf: SampleServer.repository.appendingPathComponent(path).path, options: SchemaLoadOptions(
            pluginProvider: PluginSearchPath(schemaDirectory: nil, pluginPaths: [SampleServer.binaries.path]))).mapper()
    }

    /// `Schemas/articles.yaml` (the sample server's articles in every pagination kind), with
    /// `extra` YAML appended at the top level.
    static func articles(_ extra: String = "") -> String {
        let file = SampleServer.repository.appendingPathComponent("Schemas/articles.yaml")
        return ((try? String(contentsOf: file, encoding: .utf8)) ?? "") + "\n" + extra + "\n"
    }

    /// A schema of Articles that keep the request headers they were fetched with
    /// (`@metadata.HTTP.request.headers`), in `sent`; `top` is YAML added at the top level.
    static func articlesKeepingSentHeaders(response: String, top: String = "") -> String {
        """
        restmap: 1
        \(top)
        entities:
          Article:
            attributes:
              id: { from: id, type: integer }
              sent: { from: "@metadata.HTTP.request.headers", type: any }
        responses:
          - \(response)
        """
    }

    /// A configuration for a test server: its base URL, short timeouts and quick retries.
    static func configuration(_ server: SampleServer, _ change: (inout ClientConfiguration) -> Void = { _ in }) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        configuration.retry.initialDelay = .milliseconds(20)
        configuration.retry.maxTotal = .seconds(20)
        configuration.connectTimeout = .seconds(5)
        configuration.readTimeout = .seconds(10)
        configuration.requestTimeout = .seconds(120)  // generous: the whole suite shares 2 cores
        configuration.environment = ["SAMPLE_TOKEN": "sample-token", "SAMPLE_KEY": "sample-api-key",
                                     "SAMPLE_USER": "sample-user", "SAMPLE_PASSWORD": "sample-password"]
        change(&configuration)
        return configuration
    }
}

extension PageSequence {
    /// Every page, in order.
    func collect() async throws -> [Page] {
        var pages: [Page] = []
        for try await page in self { pages.append(page) }
        return pages
    }
}

extension Record {
    var id: Int64? { if case .integer(let value)? = self["id"].value { value } else { nil } }
}

/// A request the sample server received, as its `GET /_requests` log lists it.
struct ReceivedRequest: Sendable, Equatable {
    var method: String
    var target: String
}

/// The requests `server` received, read once it has received at least `count` of them
/// (`GET /_requests?wait-for=N`, which answers at the latest after 10 s): a test waits for a
/// request to reach the server instead of sleeping.
func receivedRequests(by server: SampleServer, waitingFor count: Int) async throws -> [ReceivedRequest] {
    let schema = """
        restmap: 1
        entities:
          Received: { attributes: [method, target] }
        responses:
          - { path: /_requests, entity: Received }
        """
    let configuration = TestSchemas.configuration(server) {
        $0.readTimeout = .seconds(15)
        $0.cache = false
    }
    let response = try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: configuration) { client in
        try await client.get(path: "/_requests", query: ["wait-for": String(count)])
    }
    return response.result.records.map { record in
        func text(_ key: String) -> String {
            if case .string(let value)? = record[key].value { value } else { "-" }
        }
        return ReceivedRequest(method: text("method"), target: text("target"))
    }
}

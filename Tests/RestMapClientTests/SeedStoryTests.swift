import Foundation
import HTTPTypes
import RestMapTestSupport
import RestMap
import RestMapClient
import Testing

/// The seed stories end to end over HTTP, with the repository's schemas.
@Suite("Seed stories over HTTP")
struct SeedStoryTests {
    static let environment = ["MONGOHQ_API_KEY": "sample-api-key", "GITHUB_TOKEN": "sample-token"]

    private func withClient<T: Sendable>(_ schema: String, basePath: String = "", _ body: (RestClient) async throws -> T) async throws -> T {
        try await SampleServer.with { server in
            let configuration = TestSchemas.configuration(server) {
                $0.baseURL = server.baseURL + basePath
                $0.environment = Self.environment
            }
            return try await RestClient.with(mapper: try TestSchemas.repositoryMapper(schema), configuration: configuration, body)
        }
    }

    @Test("MongoHQ: databases → collections (relationship route) → documents, with routing metadata")
    func mongoHQ() async throws {
        try await withClient("Schemas/mongohq.yaml") { client in
            let databases = try await client.get(route: "database_list").result.records
            #expect(databases.map { $0["name"].value?.stringValue } == ["Test", "Second"])
            let test = try #require(databases.first)
            let collections = try await client.get(relationship: "collections", of: test).result.records
            #expect(collections.contains { $0["name"].value == .string("movies") })
            #expect(collections.allSatisfy { $0["databaseID"].value == .string("Test") })
            let documents = try await client.get(route: "documents", parameters: ["databaseID": "Test", "collectionID": "movies"])
            #expect(!documents.result.records.isEmpty)
            #expect(documents.result.records.allSatisfy {
                $0["databaseID"].value == .string("Test") && $0["collectionID"].value == .string("movies")
            })
        }
    }

    @Test("MongoHQ: a JSON body creates a collection; an unknown database is a mapped error")
    func mongoHQSend() async throws {
        try await withClient("Schemas/mongohq.yaml") { client in
            let collection = try client.mapper.makeRecord(entity: "Collection", values: ["name": .string("books"), "databaseID": .string("Test")])
            let created = try await client.send(collection, method: .post)
            #expect(created.status == 201)
            #expect(created.result.records.first?["name"].value == .string("books"))
            #expect(created.result.records.first?["databaseID"].value == .string("Test"))
            let error = await #expect(throws: ClientError.self) {
                try await client.get(route: "collections", parameters: ["databaseID": "Nope"])
            }
            guard case .errorResponse(404, let url, let messages, _)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(url.hasSuffix("/databases/Nope/collections"))
            #expect(messages.first?.message == "No matching database associated with this account")
            #expect(messages.first?.code == .integer(1005))
        }
    }

    @Test("Stashboard: services and a service's events under the /api/v1 base path")
    func stashboard() async throws {
        try await withClient("Schemas/stashboard.yaml", basePath: "/api/v1") { client in
            let services = try await client.get(route: "services").result.records
            #expect(services.count == 3)
            let events = try await client.get(route: "events", parameters: ["serviceID": "aaron"]).result.records
            #expect(!events.isEmpty)
        }
    }

    @Test("GitHub: octocat's starred repositories through Link pages; the authenticated user with the bearer token")
    func gitHub() async throws {
        try await withClient("Schemas/github.yaml") { client in
            let pages = try await client.pages(route: "starred", parameters: ["login": "octocat"], query: ["per_page": "1"]).collect()
            #expect(pages.count == 3)
            #expect(pages.flatMap(\.records).count == 3)
            #expect(pages.last?.stopReason == .noNextLink)
            let user = try await client.get(route: "authenticatedUser").result.records.first
            #expect(user?["login"].value == .string("octocat"))
            let owner = try #require(pages.first?.records.first)
            let starred = try await client.get(relationship: "starred", of: try #require(owner.related("owner").first))
            #expect(starred.status == 200)
        }
    }

    @Test("Task list: the object graph, then a task sent as a Rails form body")
    func taskList() async throws {
        try await withClient("Schemas/tasks.yaml") { client in
            let list = try await client.get(route: "taskList")
            #expect(list.result.records.count == 3)
            #expect(!list.result.records(of: "Task").isEmpty)
            let task = try client.mapper.makeRecord(entity: "Task", values: [
                "name": .string("Write the client"), "assignedUserID": .integer(2), "projectID": .integer(123),
            ])
            let created = try await client.send(task, method: .post)
            #expect(created.status == 201)
            #expect(created.result.records.first?["name"].value == .string("Write the client"))
            #expect(created.result.records.first?["assignedUserID"].value == .integer(2))
            let refused = try client.mapper.makeRecord(entity: "Task", values: ["assignedUserID": .integer(2)])
            let error = await #expect(throws: ClientError.self) { try await client.send(refused, method: .post) }
            guard case .errorResponse(422, _, let messages, _)? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(messages.map(\.message) == ["Name can't be blank"])
        }
    }

    @Test("Header names compare without case: a call's header replaces the schema's and the defaults of the same name, sent once")
    func headerNamesWithoutCase() async throws {
        let schema = TestSchemas.articlesKeepingSentHeaders(response: "{ path: /articles/:id, entity: Article }",
                                                            top: "headers: { X-Client: restmap-test, Accept: application/json }")
        try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: TestSchemas.configuration(server)) { client in
                let response = try await client.get(path: "/articles/2", headers: [.init("x-client")!: "override", .init("user-agent")!: "tester", .init("ACCEPT")!: "*/*"])
                let record = try #require(response.result.records.first)
                guard case .object(let members)? = record["sent"].value else {
                    Issue.record("no request headers in @metadata: \(record["sent"])")
                    return
                }
                func values(_ name: String) -> [Value] {
                    members.filter { $0.key.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
                }
                #expect(values("X-Client") == [.string("override")])
                #expect(values("User-Agent") == [.string("tester")])
                #expect(values("Accept") == [.string("*/*")])
                #expect(values("Accept-Encoding") == [.string("gzip, deflate")])
            }
        }
    }

    @Test("@metadata.HTTP holds the full request and response URLs and the request headers")
    func metadata() async throws {
        let schema = """
            restmap: 1
            headers: { X-Client: restmap-test }
            entities:
              Article:
                attributes:
                  id: { from: id, type: integer }
                  requestURL: "@metadata.HTTP.request.URL"
                  responseURL: "@metadata.HTTP.response.URL"
                  clientHeader: "@metadata.HTTP.request.headers.X-Client"
                  status: "@metadata.HTTP.response.statusCode"
            responses:
              - { path: /articles/:id, entity: Article }
              - { path: /page/articles, keyPath: articles, entity: Article }
            """
        try await SampleServer.with { server in
            try await RestClient.with(mapper: try TestSchemas.mapper(schema), configuration: TestSchemas.configuration(server)) { client in
                let direct = try #require(try await client.get(path: "/articles/2").result.records.first)
                #expect(direct["requestURL"].value == .string("\(server.baseURL)/articles/2"))
                #expect(direct["responseURL"].value == .string("\(server.baseURL)/articles/2"))
                #expect(direct["clientHeader"].value == .string("restmap-test"))
                #expect(direct["status"].value == .integer(200))
                let target = "\(server.baseURL)/page/articles"
                let redirected = try #require(try await client.get(path: "/articles/2", query: ["redirect": target]).result.records.first)
                #expect(redirected["requestURL"].value?.stringValue?.hasPrefix("\(server.baseURL)/articles/2?redirect=") == true)
                #expect(redirected["responseURL"].value == .string(target))
            }
        }
    }
}

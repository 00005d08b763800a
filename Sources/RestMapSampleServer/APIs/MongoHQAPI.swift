import Hummingbird

/// MongoHQ databases, collections and documents with CRUD, in memory (Schemas/mongohq.yaml).
/// Every route needs the API key, in `MongoHQ-API-Token` or `_apikey`.
actor MongoHQAPI {
    private struct Collection {
        var name: String
        var indexCount: Int
        var storageSize: Int
        var documents: [JSONValue]

        var json: JSONValue {
            .object(["name": .string(name), "count": .integer(documents.count), "indexCount": .integer(indexCount), "storageSize": .integer(storageSize)])
        }
    }

    private struct Database {
        var json: JSONValue
        var collections: [Collection]
        var name: String { json["name"]?.stringValue ?? "" }
    }

    private var databases: [Database]
    private var nextObjectID = 1
    private let credentials: Credentials

    init(data: SampleData, credentials: Credentials) throws(SampleData.LoadError) {
        let documents = try data.array("mongohq/documents.json")
        let collections = try data.array("mongohq/collections.json").map { value in
            let name = value["name"]?.stringValue ?? ""
            return Collection(
                name: name,
                indexCount: value["indexCount"]?.intValue ?? 1,
                storageSize: value["storageSize"]?.intValue ?? 8192,
                documents: name == "movies" ? documents : []
            )
        }
        databases = try data.array("mongohq/databases.json").map { value in
            Database(json: value, collections: value["name"]?.stringValue == "Test" ? collections : [])
        }
        self.credentials = credentials
    }

    nonisolated func register(on router: some RouterMethods<SampleRequestContext>) {
        // Every route needs the API key.
        let credentials = credentials
        let databases = router.group("/databases").add(middleware: CredentialsMiddleware { request, context in
            credentials.checkAPIKey(request, context: context, header: .mongoHQToken, query: "_apikey")
        } refusal: { outcome in
            Self.failure(.unauthorized, outcome == .missing ? "API key required" : "Invalid API key", code: 1001)
        })
        func route(_ method: HTTPRequest.Method, _ path: RouterPath, _ action: @escaping @Sendable (MongoHQAPI, RouteRequest) async throws -> Reply) {
            databases.on(method, path) { request in try await action(self, request) }
        }
        let collectionPath = "/:db/collections/:col"
        route(.get, "") { api, _ in await api.listDatabases() }
        route(.post, "") { api, request in try await api.createDatabase(request) }
        route(.get, "/:db") { api, request in try await api.database(request) }
        route(.delete, "/:db") { api, request in try await api.deleteDatabase(request) }
        route(.get, "/:db/collections") { api, request in try await api.listCollections(request) }
        route(.post, "/:db/collections") { api, request in try await api.createCollection(request) }
        route(.get, RouterPath(collectionPath)) { api, request in try await api.collection(request) }
        route(.put, RouterPath(collectionPath)) { api, request in try await api.renameCollection(request) }
        route(.delete, RouterPath(collectionPath)) { api, request in try await api.deleteCollection(request) }
        route(.get, RouterPath(collectionPath + "/documents")) { api, request in try await api.listDocuments(request) }
        route(.post, RouterPath(collectionPath + "/documents")) { api, request in try await api.createDocument(request) }
        route(.get, RouterPath(collectionPath + "/documents/:id")) { api, request in try await api.document(request) }
        route(.put, RouterPath(collectionPath + "/documents/:id")) { api, request in try await api.replaceDocument(request) }
        route(.delete, RouterPath(collectionPath + "/documents/:id")) { api, request in try await api.deleteDocument(request) }
    }

    // MARK: Errors

    private static func failure(_ status: HTTPResponse.Status, _ message: String, code: Int) -> Reply {
        .json(.object(["error": .string(message), "code": .integer(code)]), status: status)
    }

    private static let noDatabase = failure(.notFound, "No matching database associated with this account", code: 1005)
    private static let noCollection = failure(.notFound, "No matching collection associated with this database", code: 1006)
    private static let noDocument = failure(.notFound, "No matching document associated with this collection", code: 1007)
    private static let notAnObject = failure(.badRequest, "The body must be a JSON object", code: 1000)

    private func databaseIndex(_ request: RouteRequest) throws(ReplyError) -> Int {
        guard let index = databases.firstIndex(where: { $0.name == request.parameter("db") }) else { throw ReplyError(Self.noDatabase) }
        return index
    }

    /// The database and collection indexes of the request.
    private func collectionIndex(_ request: RouteRequest) throws(ReplyError) -> (database: Int, collection: Int) {
        let database = try databaseIndex(request)
        guard let collection = databases[database].collections.firstIndex(where: { $0.name == request.parameter("col") }) else {
            throw ReplyError(Self.noCollection)
        }
        return (database, collection)
    }

    /// The database, collection and document indexes of the request.
    private func documentIndex(_ request: RouteRequest) throws(ReplyError) -> (database: Int, collection: Int, document: Int) {
        let (database, collection) = try collectionIndex(request)
        let id = request.parameter("id")
        guard let document = databases[database].collections[collection].documents.firstIndex(where: { Self.identifier(of: $0) == id }) else {
            throw ReplyError(Self.noDocument)
        }
        return (database, collection, document)
    }

    /// The non-empty `name` string of a JSON body.
    private static func name(in request: RouteRequest, what: String) throws(ReplyError) -> String {
        guard let body = request.bodyObject() else { throw ReplyError(notAnObject) }
        guard let name = body["name"]?.stringValue, !name.isEmpty else {
            throw ReplyError(failure(.unprocessableContent, "\(what) name required", code: 1002))
        }
        return name
    }

    private static func alreadyExists(_ what: String) -> Reply {
        failure(.conflict, "\(what) already exists", code: 1003)
    }

    // MARK: Databases

    private func listDatabases() -> Reply {
        .json(.array(databases.map(\.json)))
    }

    private func createDatabase(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let name = try Self.name(in: request, what: "Database")
        guard !databases.contains(where: { $0.name == name }) else { return Self.alreadyExists("Database") }
        let plan = request.bodyObject()?["slug"]?.stringValue ?? "Sandbox"
        let json = JSONValue.object([
            "hostname": .string("sandbox.mongohq.com"), "name": .string(name), "plan": .string(plan),
            "port": .integer(10097), "shared": .bool(true),
        ])
        databases.append(Database(json: json, collections: []))
        return .json(json, status: .created)
    }

    private func database(_ request: RouteRequest) throws(ReplyError) -> Reply {
        .json(databases[try databaseIndex(request)].json)
    }

    private func deleteDatabase(_ request: RouteRequest) throws(ReplyError) -> Reply {
        databases.remove(at: try databaseIndex(request))
        return .noContent
    }

    // MARK: Collections

    private func listCollections(_ request: RouteRequest) throws(ReplyError) -> Reply {
        .json(.array(databases[try databaseIndex(request)].collections.map(\.json)))
    }

    private func createCollection(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let database = try databaseIndex(request)
        let name = try Self.name(in: request, what: "Collection")
        guard !databases[database].collections.contains(where: { $0.name == name }) else { return Self.alreadyExists("Collection") }
        let collection = Collection(name: name, indexCount: 1, storageSize: 8192, documents: [])
        databases[database].collections.append(collection)
        return .json(collection.json, status: .created)
    }

    private func collection(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection) = try collectionIndex(request)
        return .json(databases[database].collections[collection].json)
    }

    private func renameCollection(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection) = try collectionIndex(request)
        let name = try Self.name(in: request, what: "Collection")
        let collections = databases[database].collections
        guard !collections.indices.contains(where: { $0 != collection && collections[$0].name == name }) else { return Self.alreadyExists("Collection") }
        databases[database].collections[collection].name = name
        return .json(databases[database].collections[collection].json)
    }

    private func deleteCollection(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection) = try collectionIndex(request)
        databases[database].collections.remove(at: collection)
        return .noContent
    }

    // MARK: Documents

    private func listDocuments(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection) = try collectionIndex(request)
        guard let skip = request.integer(["skip"], default: 0), skip >= 0,
              let limit = request.integer(["limit"], default: Int.max), limit >= 0 else {
            return Self.failure(.badRequest, "skip and limit must be non-negative integers", code: 1000)
        }
        return .json(.array(Array(databases[database].collections[collection].documents.dropFirst(skip).prefix(limit))))
    }

    /// The document of a body: `{"document": {…}}` or the bare object.
    private static func document(in request: RouteRequest) throws(ReplyError) -> JSONValue {
        guard let body = request.bodyObject() else { throw ReplyError(notAnObject) }
        if let wrapped = body["document"], case .object = wrapped { return wrapped }
        return body
    }

    /// `_id` as the path names it: the `$oid` string or a plain string.
    private static func identifier(of document: JSONValue) -> String? {
        document["_id"]?.stringValue ?? document["_id"]?["$oid"]?.stringValue
    }

    private func createDocument(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection) = try collectionIndex(request)
        var document = try Self.document(in: request)
        if document["_id"] == nil {
            let hex = String(nextObjectID, radix: 16)
            nextObjectID += 1
            let oid = "5a17e5000000000000" + String(repeating: "0", count: max(0, 6 - hex.count)) + hex
            document = .object([JSONValue.Member(key: "_id", value: .object(["$oid": .string(oid)]))] + document.members)
        }
        databases[database].collections[collection].documents.append(document)
        return .json(document, status: .created)
    }

    private func document(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection, document) = try documentIndex(request)
        return .json(databases[database].collections[collection].documents[document])
    }

    private func replaceDocument(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection, index) = try documentIndex(request)
        let replacement = try Self.document(in: request)
        let identifier = databases[database].collections[collection].documents[index]["_id"] ?? .null
        let document = JSONValue.object([JSONValue.Member(key: "_id", value: identifier)] + replacement.members.filter { $0.key != "_id" })
        databases[database].collections[collection].documents[index] = document
        return .json(document)
    }

    private func deleteDocument(_ request: RouteRequest) throws(ReplyError) -> Reply {
        let (database, collection, index) = try documentIndex(request)
        databases[database].collections[collection].documents.remove(at: index)
        return .noContent
    }
}


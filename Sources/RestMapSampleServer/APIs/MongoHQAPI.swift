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

    nonisolated func register(in table: inout RouteTable) {
        func route(_ method: HTTPRequest.Method, _ path: String, _ action: @escaping @Sendable (MongoHQAPI, RouteRequest) async -> Reply) {
            table.add(method, path) { request in
                if let refusal = self.refusal(request) { return refusal }
                return await action(self, request)
            }
        }
        let collectionPath = "/databases/:db/collections/:col"
        route(.get, "/databases") { api, _ in await api.listDatabases() }
        route(.post, "/databases") { api, request in await api.createDatabase(request) }
        route(.get, "/databases/:db") { api, request in await api.database(request) }
        route(.delete, "/databases/:db") { api, request in await api.deleteDatabase(request) }
        route(.get, "/databases/:db/collections") { api, request in await api.listCollections(request) }
        route(.post, "/databases/:db/collections") { api, request in await api.createCollection(request) }
        route(.get, collectionPath) { api, request in await api.collection(request) }
        route(.put, collectionPath) { api, request in await api.renameCollection(request) }
        route(.delete, collectionPath) { api, request in await api.deleteCollection(request) }
        route(.get, collectionPath + "/documents") { api, request in await api.listDocuments(request) }
        route(.post, collectionPath + "/documents") { api, request in await api.createDocument(request) }
        route(.get, collectionPath + "/documents/:id") { api, request in await api.document(request) }
        route(.put, collectionPath + "/documents/:id") { api, request in await api.replaceDocument(request) }
        route(.delete, collectionPath + "/documents/:id") { api, request in await api.deleteDocument(request) }
    }

    // MARK: Auth and errors

    /// The `401` for a missing or wrong API key, `nil` when the key is right.
    private nonisolated func refusal(_ request: RouteRequest) -> Reply? {
        switch credentials.checkAPIKey(request, header: .mongoHQToken, query: "_apikey") {
        case .accepted: nil
        case .missing: Self.failure(.unauthorized, "API key required", code: 1001)
        case .wrong: Self.failure(.unauthorized, "Invalid API key", code: 1001)
        }
    }

    private static func failure(_ status: HTTPResponse.Status, _ message: String, code: Int) -> Reply {
        .json(.object(["error": .string(message), "code": .integer(code)]), status: status)
    }

    private static let noDatabase = failure(.notFound, "No matching database associated with this account", code: 1005)
    private static let noCollection = failure(.notFound, "No matching collection associated with this database", code: 1006)
    private static let noDocument = failure(.notFound, "No matching document associated with this collection", code: 1007)
    private static let notAnObject = failure(.badRequest, "The body must be a JSON object", code: 1000)

    private func databaseIndex(_ request: RouteRequest) -> Int? {
        databases.firstIndex { $0.name == request.parameter("db") }
    }

    /// The database and collection indexes of the request, or the 404 to answer.
    private func collectionIndex(_ request: RouteRequest) -> Result<(Int, Int), ReplyError> {
        guard let database = databaseIndex(request) else { return .failure(ReplyError(Self.noDatabase)) }
        guard let collection = databases[database].collections.firstIndex(where: { $0.name == request.parameter("col") }) else {
            return .failure(ReplyError(Self.noCollection))
        }
        return .success((database, collection))
    }

    /// A `name` string in the body, or the error to answer.
    private static func name(in request: RouteRequest, what: String) -> Result<String, ReplyError> {
        guard let body = request.bodyObject() else { return .failure(ReplyError(notAnObject)) }
        guard let name = body["name"]?.stringValue, !name.isEmpty else {
            return .failure(ReplyError(failure(.unprocessableContent, "\(what) name required", code: 1002)))
        }
        return .success(name)
    }

    // MARK: Databases

    private func listDatabases() -> Reply {
        .json(.array(databases.map(\.json)))
    }

    private func createDatabase(_ request: RouteRequest) -> Reply {
        let name: String
        switch Self.name(in: request, what: "Database") {
        case .success(let value): name = value
        case .failure(let error): return error.reply
        }
        guard !databases.contains(where: { $0.name == name }) else {
            return Self.failure(.conflict, "Database already exists", code: 1003)
        }
        let plan = request.bodyObject()?["slug"]?.stringValue ?? "Sandbox"
        let json = JSONValue.object([
            "hostname": .string("sandbox.mongohq.com"), "name": .string(name), "plan": .string(plan),
            "port": .integer(10097), "shared": .bool(true),
        ])
        databases.append(Database(json: json, collections: []))
        return .json(json, status: .created)
    }

    private func database(_ request: RouteRequest) -> Reply {
        guard let index = databaseIndex(request) else { return Self.noDatabase }
        return .json(databases[index].json)
    }

    private func deleteDatabase(_ request: RouteRequest) -> Reply {
        guard let index = databaseIndex(request) else { return Self.noDatabase }
        databases.remove(at: index)
        return .noContent
    }

    // MARK: Collections

    private func listCollections(_ request: RouteRequest) -> Reply {
        guard let index = databaseIndex(request) else { return Self.noDatabase }
        return .json(.array(databases[index].collections.map(\.json)))
    }

    private func createCollection(_ request: RouteRequest) -> Reply {
        guard let database = databaseIndex(request) else { return Self.noDatabase }
        let name: String
        switch Self.name(in: request, what: "Collection") {
        case .success(let value): name = value
        case .failure(let error): return error.reply
        }
        guard !databases[database].collections.contains(where: { $0.name == name }) else {
            return Self.failure(.conflict, "Collection already exists", code: 1003)
        }
        let collection = Collection(name: name, indexCount: 1, storageSize: 8192, documents: [])
        databases[database].collections.append(collection)
        return .json(collection.json, status: .created)
    }

    private func collection(_ request: RouteRequest) -> Reply {
        switch collectionIndex(request) {
        case .success(let (database, collection)): .json(databases[database].collections[collection].json)
        case .failure(let error): error.reply
        }
    }

    private func renameCollection(_ request: RouteRequest) -> Reply {
        let (database, collection): (Int, Int)
        switch collectionIndex(request) {
        case .success(let indexes): (database, collection) = indexes
        case .failure(let error): return error.reply
        }
        switch Self.name(in: request, what: "Collection") {
        case .success(let name):
            let taken = databases[database].collections.indices.contains { $0 != collection && databases[database].collections[$0].name == name }
            guard !taken else { return Self.failure(.conflict, "Collection already exists", code: 1003) }
            databases[database].collections[collection].name = name
            return .json(databases[database].collections[collection].json)
        case .failure(let error): return error.reply
        }
    }

    private func deleteCollection(_ request: RouteRequest) -> Reply {
        switch collectionIndex(request) {
        case .success(let (database, collection)):
            databases[database].collections.remove(at: collection)
            return .noContent
        case .failure(let error): return error.reply
        }
    }

    // MARK: Documents

    private func listDocuments(_ request: RouteRequest) -> Reply {
        switch collectionIndex(request) {
        case .success(let (database, collection)):
            guard let skip = request.integer(["skip"], default: 0), skip >= 0,
                  let limit = request.integer(["limit"], default: Int.max), limit >= 0 else {
                return Self.failure(.badRequest, "skip and limit must be non-negative integers", code: 1000)
            }
            let documents = databases[database].collections[collection].documents
            return .json(.array(Array(documents.dropFirst(skip).prefix(limit))))
        case .failure(let error): return error.reply
        }
    }

    /// The document of a body: `{"document": {…}}` or the bare object.
    private static func document(in request: RouteRequest) -> JSONValue? {
        guard let body = request.bodyObject() else { return nil }
        if let wrapped = body["document"], case .object = wrapped { return wrapped }
        return body
    }

    /// `_id` as the path names it: the `$oid` string or a plain string.
    private static func identifier(of document: JSONValue) -> String? {
        document["_id"]?.stringValue ?? document["_id"]?["$oid"]?.stringValue
    }

    private func createDocument(_ request: RouteRequest) -> Reply {
        let (database, collection): (Int, Int)
        switch collectionIndex(request) {
        case .success(let indexes): (database, collection) = indexes
        case .failure(let error): return error.reply
        }
        guard var document = Self.document(in: request) else { return Self.notAnObject }
        if document["_id"] == nil {
            let hex = String(nextObjectID, radix: 16)
            nextObjectID += 1
            let oid = "5a17e5000000000000" + String(repeating: "0", count: max(0, 6 - hex.count)) + hex
            document = .object([JSONValue.Member(key: "_id", value: .object(["$oid": .string(oid)]))] + (document.members))
        }
        databases[database].collections[collection].documents.append(document)
        return .json(document, status: .created)
    }

    private func documentIndex(_ request: RouteRequest) -> Result<(Int, Int, Int), ReplyError> {
        switch collectionIndex(request) {
        case .success(let (database, collection)):
            let id = request.parameter("id")
            guard let document = databases[database].collections[collection].documents.firstIndex(where: { Self.identifier(of: $0) == id }) else {
                return .failure(ReplyError(Self.noDocument))
            }
            return .success((database, collection, document))
        case .failure(let error): return .failure(error)
        }
    }

    private func document(_ request: RouteRequest) -> Reply {
        switch documentIndex(request) {
        case .success(let (database, collection, document)): .json(databases[database].collections[collection].documents[document])
        case .failure(let error): error.reply
        }
    }

    private func replaceDocument(_ request: RouteRequest) -> Reply {
        switch documentIndex(request) {
        case .success(let (database, collection, index)):
            guard var document = Self.document(in: request) else { return Self.notAnObject }
            let identifier = databases[database].collections[collection].documents[index]["_id"] ?? .null
            document = .object([JSONValue.Member(key: "_id", value: identifier)] + document.members.filter { $0.key != "_id" })
            databases[database].collections[collection].documents[index] = document
            return .json(document)
        case .failure(let error): return error.reply
        }
    }

    private func deleteDocument(_ request: RouteRequest) -> Reply {
        switch documentIndex(request) {
        case .success(let (database, collection, index)):
            databases[database].collections[collection].documents.remove(at: index)
            return .noContent
        case .failure(let error): return error.reply
        }
    }
}

/// A reply carried as an error, for lookups that either find something or answer with it.
struct ReplyError: Error {
    var reply: Reply
    init(_ reply: Reply) { self.reply = reply }
}

import Foundation
import RestMapTestSupport
import RestMap
import RestMapPluginLoader
import RestMapSchema
import RestMapStore
import RestMapStorePostgres
import Testing

/// Paths, schemas, stores and processes shared by the store tests.
enum StoreFixture {
    /// The repository root.
    static let root = TestPaths.repository

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A fresh folder for one test's database files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A mapper for a schema under `Schemas/`, with the plugins it names (from the build folder).
    static func mapper(schema name: String) throws -> Mapper {
        try Schema.load(contentsOf: root.appendingPathComponent("Schemas/\(name)").path,
                    options: SchemaLoadOptions(pluginProvider: PluginSearchPath(schemaDirectory: nil))).mapper()
    }

    /// A mapper for a schema written inline.
    static func mapper(yaml: String) throws -> Mapper {
        let loaded = Schema.validate(bytes: Array(yaml.utf8), file: "inline.yaml")
        guard let schema = loaded.schema else { throw Failure(description: loaded.diagnostics.map(\.description).joined(separator: "\n")) }
        return try Mapper(schema: schema)
    }

    /// Repositories with a to-one owner, and labels that nothing relates to, each with a GET path.
    static let repositoriesSchema = """
        restmap: 1
        name: repositories
        entities:
          Repository:
            identifiedBy: id
            attributes: { id: { from: id, type: integer }, stars: { from: stars, type: integer } }
            relationships: { owner: { from: owner, entity: Owner } }
          Owner: { identifiedBy: id, attributes: { id: { from: id, type: integer }, login: login } }
          Label: { identifiedBy: name, attributes: { name: name } }
        responses:
          - { path: /repositories, entity: Repository }
          - { path: /owners, entity: Owner }
          - { path: /labels, entity: Label }
        """

    /// The bytes of a file under `Samples/`.
    static func sample(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("Samples/\(path)")))
    }

    /// Maps and saves a body as a GET (or `method`) of `path`.
    @discardableResult
    static func save(_ store: RecordStore, path: String, body: String, method: String = "GET", status: Int = 200,
                     isCompletePage: Bool = true) async throws -> SaveSummary {
        let response = Response(method: method, path: path, status: status, body: body)
        return try await store.importResponse(response, isCompletePage: isCompletePage).summary
    }
}

/// Runs programs: the built `restmap` binary, the `sqlite3` shell and Python.
enum Program {
    typealias Run = ProcessOutput

    /// The built `restmap` binary, next to the running test executable.
    static var restmap: URL { TestPaths.buildFolder.appendingPathComponent("restmap") }

    /// Runs `restmap` with `arguments` (and environment additions) in the repository root.
    static func restmap(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> Run {
        try ChildProcess.run(try TestPaths.built("restmap"), arguments, input: input, environment: environment)
    }

    /// Plain SQL through the `sqlite3` command-line shell: rows as `|`-separated lines.
    static func sqlite(_ database: String, _ sql: String) throws -> [String] {
        let result = try run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [database, sql])
        try #require(result.status == 0, "sqlite3 failed: \(result.errors)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// Starts a process in the repository root; the caller waits for it.
    static func start(_ executable: URL, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = StoreFixture.root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> Run {
        try ChildProcess.run(executable, arguments, in: StoreFixture.root)
    }
}

/// The engines every store rule is checked on: each parameterized test runs once per engine.
enum Engine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    var description: String { rawValue }

    /// Where a new store goes: a file in a fresh folder, or a fresh PostgreSQL database.
    func newDatabase(_ name: String = "store") throws -> String {
        switch self {
        case .sqlite: try StoreFixture.folder().appendingPathComponent("\(name).sqlite").path
        case .postgres: try PostgresServer.freshDatabase()
        }
    }

    /// Opens the store at `database` (`RecordStore.open`, which picks the engine by the name).
    func open(_ database: String, mapper: Mapper, rebuild: Bool = false) async throws -> RecordStore {
        try await RecordStore.open(database, mapper: mapper, rebuild: rebuild)
    }

    /// A new store of the mapper on this engine, and where it is.
    func newStore(_ mapper: Mapper, name: String = "store") async throws -> (store: RecordStore, database: String) {
        let database = try newDatabase(name)
        return (try await open(database, mapper: mapper), database)
    }

    /// Plain SQL on the store's database (for PostgreSQL with `namespace` first on the search
    /// path): rows as `|`-separated lines.
    func sql(_ database: String, _ sql: String, namespace: String = "") throws -> [String] {
        switch self {
        case .sqlite:
            return try Program.sqlite(database, sql)
        case .postgres:
            let prefix = namespace.isEmpty ? "" : "SET search_path TO \"\(namespace)\"; "
            let result = try PostgresServer.psql(database, prefix + sql)
            try #require(result.status == 0, "psql failed: \(result.errors)")
            return result.output.split(separator: "\n").map(String.init).filter { $0 != "SET" }
        }
    }
}

extension RecordStore {
    /// Every stored record of every entity (one level deep), as JSON lines: two stores hold the
    /// same records when these are equal.
    func dump() async throws -> [String] {
        var lines: [String] = []
        for (entity, _) in try await counts() {
            let records = try await records(StoreQuery(entity: entity, depth: 1))
            lines += records.map { RecordWriter.json([$0]) }.sorted()
        }
        return lines
    }
}

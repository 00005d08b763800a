import Foundation
import Logging
import PostgresNIO
import RestMap
import RestMapStore
import Synchronization

/// The PostgreSQL engine of a store: the schema's tables in a namespace of their own, written by
/// any number of processes at once (Docs/Store.md, "PostgreSQL").
///
/// Each save is one transaction at READ COMMITTED: upserts take row locks in a fixed order
/// (entities in save order, records by identity), a save that touches `connect` relationships
/// holds the store's advisory lock, and a transaction that fails with a serialization failure, a
/// deadlock or a unique violation (a bulk insert into an empty table that another save filled
/// meanwhile) is retried (a few times, after a random pause).
final class PostgresEngine: StoreEngine {
    let model: StoreModel
    let location: String
    /// Where the server is, for the connections that hold named locks.
    let server: PostgresLocation
    let names: PostgresNames
    /// The namespace as PostgreSQL keeps it (unquoted).
    let namespace: String
    let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger
    /// The channel `NOTIFY` tells the change feed on.
    let channel: String
    /// The advisory lock keys of this store: migrating, and saves that resolve `connect`.
    let migrationLock: Int64
    let connectLock: Int64
    /// Entities a `connect` relationship reads or writes.
    let connectEntities: Set<String>
    /// Each table's row id sequence by entity, looked up at its first insert (`rowIDSequence`).
    private let rowIDSequences = Mutex<[String: String]>([:])

    /// How many times a transaction is tried when it fails with a serialization failure, a
    /// deadlock or a unique violation.
    static let attempts = 8

    private init(location: PostgresLocation, model: StoreModel, namespace: String) throws {
        self.model = model
        self.location = location.description
        server = location
        self.namespace = PostgresNames.short(namespace)
        names = PostgresNames(namespace: namespace)
        try PostgresNames.checkCollisions(model.layout)
        var logger = Logger(label: "RestMapStorePostgres")
        logger.logLevel = .critical
        self.logger = logger
        client = PostgresClient(configuration: try location.configuration(), backgroundLogger: logger)
        let client = client
        running = Task { await client.run() }
        channel = "restmap_" + String(Self.key(self.namespace, "changes"), radix: 16).replacingOccurrences(of: "-", with: "m")
        migrationLock = Self.key(self.namespace, "migrate")
        connectLock = Self.key(self.namespace, "connect")
        var connected = Set<String>()
        for table in model.layout.tables {
            for link in table.links where !link.connections.isEmpty {
                connected.insert(table.entity)
                connected.formUnion(link.targets)
            }
        }
        connectEntities = connected
    }

    /// How `open` finds the store's namespace.
    enum Opening {
        /// Created, or migrated (destructive changes refused unless `rebuild`).
        case writing(rebuild: Bool)
        /// Checked, as it is, for reading.
        case reading
        /// Created empty, whatever it held (a seed's namespace).
        case empty
    }

    /// Opens the store in `namespace` at `location`.
    static func open(_ location: PostgresLocation, model: StoreModel, namespace: String, _ opening: Opening) async throws -> PostgresEngine {
        var logger = Logger(label: "RestMapStorePostgres")
        logger.logLevel = .critical
        do {
            let first = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 0, logger: logger)
            try await first.close()
        } catch {
            throw StoreError("\(location): cannot connect: \(message(error))")
        }
        let engine = try PostgresEngine(location: location, model: model, namespace: namespace)
        do {
            switch opening {
            case .writing(let rebuild): try await engine.prepare(rebuild: rebuild)
            case .reading: try await engine.checkForReading()
            case .empty: try await engine.prepare(rebuild: true, dropping: true)
            }
        } catch {
            engine.running.cancel()
            throw error
        }
        return engine
    }

    /// The row id sequence of an entity's table, as `nextval` takes it (`pg_get_serial_sequence`,
    /// asked once per table: `nextval` is eight times as fast with the name bound as a constant
    /// than looked up for every row).
    func rowIDSequence(_ entity: String, _ connection: PostgresConnection) async throws -> String {
        if let known = rowIDSequences.withLock({ $0[entity] }) { return known }
        let found = try await connection.rows("SELECT pg_get_serial_sequence($1, '\(StoreSQL.rowID)')", binds(names.table(entity)), logger: logger)
        guard let sequence = firstValue(found) else { throw StoreError("\(entity): the row id sequence was not found") }
        rowIDSequences.withLock { $0[entity] = sequence }
        return sequence
    }

    /// A stable 64-bit key of a text, for advisory locks and the channel name.
    static func key(_ parts: String...) -> Int64 {
        Int64(bitPattern: StoreLocking.stableHash("restmap/" + parts.joined(separator: "/")))
    }

    /// A named lock: a session advisory lock, held by a connection of its own (so that it is
    /// released when the holder ends, however it ends) and tried again while another session has it.
    func lock(_ name: String, whenBusy: () -> Void) async throws -> any HeldStoreLock {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: try server.connectionConfiguration(), id: 1, logger: logger)
        } catch {
            throw described(error)
        }
        let key = String(Self.key(namespace, "lock", name))
        do {
            return try await StoreLocking.poll(whenBusy: whenBusy) {
                let rows = try await connection.rows("SELECT pg_try_advisory_lock($1::bigint)::text", binds(key), logger: logger)
                return firstValue(rows) == "true" ? AdvisoryLock(connection: connection) : nil
            }
        } catch {
            try? await connection.close()
            throw described(error)
        }
    }

    /// A session advisory lock; closing its connection releases it.
    struct AdvisoryLock: HeldStoreLock {
        let connection: PostgresConnection

        func release() async {
            try? await connection.close()
        }
    }

    func close() throws {
        running.cancel()
    }

    // MARK: Running SQL

    /// Runs `body` in a transaction, again when it fails with a serialization failure, a deadlock
    /// or a unique violation (at most `attempts` times); other failures roll back and throw at once.
    /// A unique violation is retried as PostgreSQL's documentation advises ("Serialization Failure
    /// Handling"): at READ COMMITTED it means another transaction inserted the same key meanwhile,
    /// which the next attempt sees (a bulk insert into a table that was empty).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await client.withConnection { connection in
                    try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
                }
            } catch {
                let state = Self.sqlState(error)
                guard ["40001", "40P01", "23505"].contains(state), attempt < Self.attempts else { throw described(error) }
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(10 << min(attempt, 6)))))
            }
        }
    }

    /// Runs `body` in a read-only transaction that sees one snapshot (REPEATABLE READ): a
    /// read of several queries (roots, rows, related rows) sees one state of the store, as a
    /// SQLite read transaction does.
    func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in
                try await connection.withTransaction(logger: logger) { connection in
                    try await connection.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                    return try await body(connection)
                }
            }
        } catch {
            throw described(error)
        }
    }

    /// Runs `body` with a connection, outside a transaction.
    func withConnection(_ body: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        do { try await client.withConnection { connection in try await body(connection) } } catch { throw described(error) }
    }

    /// The error PostgreSQL answered (its SQLSTATE), wherever it is wrapped.
    static func sqlState(_ error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError {
            return (transaction.closureError ?? transaction.commitError ?? transaction.beginError).flatMap(sqlState)
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// An error as a `StoreError` naming the store (never its password).
    func described(_ error: any Error) -> any Error {
        if error is StoreError || error is CheckpointConflict || error is CancellationError { return error }
        if let transaction = error as? PostgresTransactionError,
           let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError {
            return described(inner)
        }
        return StoreError("\(location): \(Self.message(error))")
    }

    /// What an error says, for a message.
    static func message(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if error.code == .sslUnsupported { return "the server does not offer TLS, which the URL's sslmode requires" }
        if let info = error.serverInfo, let message = info[.message] {
            var text = message
            if let detail = info[.detail] { text += " (\(detail))" }
            if let state = info[.sqlState] { text += " [SQLSTATE \(state)]" }
            return text
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

extension PostgresConnection {
    /// Runs SQL with bindings and returns every row's columns as text (`nil` for NULL); every
    /// column a store query selects is text, so nothing is lost.
    @discardableResult
    func rows(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), logger: Logger) async throws -> [[String?]] {
        let sequence = try await query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        var rows: [[String?]] = []
        for try await row in sequence {
            rows.append(try row.map { cell in try cell.decode(String?.self) })
        }
        return rows
    }

    /// Runs one SQL statement and ignores what it returns.
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), logger: Logger) async throws {
        for try await _ in try await query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {}
    }

    /// Runs statements one by one (a prepared statement holds one).
    func run(statements: [String], logger: Logger) async throws {
        for statement in statements { try await run(statement, logger: logger) }
    }
}

/// The first column of the first row, if any.
func firstValue(_ rows: [[String?]]) -> String? {
    rows.first.flatMap { $0.first ?? nil }
}

/// Bindings from values.
func binds(_ values: String?...) -> PostgresBindings {
    var binds = PostgresBindings(capacity: values.count)
    for value in values { binds.append(value) }
    return binds
}

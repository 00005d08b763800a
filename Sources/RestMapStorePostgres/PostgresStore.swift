import Foundation
import RestMap
import RestMapStore

extension RecordStore {
    /// Opens (or creates) the store of the mapper's schema in a PostgreSQL database.
    ///
    /// The tables live in a PostgreSQL schema (namespace) of their own, named after the RestMap
    /// schema (`name:`, else `restmap`) unless `namespace` is given, so that several RestMap
    /// schemas can share one database. Opening migrates additive changes and refuses destructive
    /// ones unless `rebuild` is `true`, as `init(path:mapper:rebuild:)` does; processes opening
    /// the store at once migrate it once. Any number of processes may then save at once.
    ///
    /// - Parameter url: `postgres://user@host:port/database?sslmode=…` (see `PostgresLocation`).
    public static func open(postgres url: String, mapper: Mapper, namespace: String? = nil, rebuild: Bool = false) async throws -> RecordStore {
        let model = try StoreModel(mapper: mapper)
        let location = try PostgresLocation(url: url)
        let engine = try await PostgresEngine.open(location, model: model, namespace: namespace ?? Self.namespace(of: mapper), .writing(rebuild: rebuild))
        return RecordStore(engine: engine, model: model, isReadOnly: false)
    }

    /// Opens an existing PostgreSQL store for reading only: nothing is created or migrated, and a
    /// store whose layout differs from the mapper's schema is an error (as `init(readingAt:mapper:)`).
    public static func open(readingPostgres url: String, mapper: Mapper, namespace: String? = nil) async throws -> RecordStore {
        let model = try StoreModel(mapper: mapper)
        let location = try PostgresLocation(url: url)
        let engine = try await PostgresEngine.open(location, model: model, namespace: namespace ?? Self.namespace(of: mapper), .reading)
        return RecordStore(engine: engine, model: model, isReadOnly: true)
    }

    /// Opens the store `database` names: a `postgres://` URL, or else a SQLite file path.
    /// `readOnly` opens an existing store for reading only.
    public static func open(_ database: String, mapper: Mapper, rebuild: Bool = false, readOnly: Bool = false) async throws -> RecordStore {
        if PostgresLocation.isURL(database) {
            return readOnly ? try await open(readingPostgres: database, mapper: mapper) : try await open(postgres: database, mapper: mapper, rebuild: rebuild)
        }
        return readOnly ? try RecordStore(readingAt: database, mapper: mapper) : try RecordStore(path: database, mapper: mapper, rebuild: rebuild)
    }

    /// The PostgreSQL schema a RestMap schema's tables live in by default.
    public static func namespace(of mapper: Mapper) -> String {
        mapper.schema.name.flatMap { $0.isEmpty ? nil : $0 } ?? "restmap"
    }
}

extension RecordStore {
    /// Seeds a PostgreSQL store, all or nothing: `build` fills a new store in a namespace of its
    /// own, which replaces the store's namespace (in one transaction) only when `build` returns;
    /// when it throws, the new namespace is dropped and the existing store is untouched.
    public static func seed(postgres url: String, mapper: Mapper, namespace: String? = nil,
                            _ build: (RecordStore) async throws -> Void) async throws {
        let target = namespace ?? Self.namespace(of: mapper)
        let building = "\(target).seeding-\(ProcessInfo.processInfo.processIdentifier)"
        // Empty even when an earlier seed that failed left this namespace behind.
        let model = try StoreModel(mapper: mapper)
        let engine = try await PostgresEngine.open(try PostgresLocation(url: url), model: model, namespace: building, .empty)
        let store = RecordStore(engine: engine, model: model, isReadOnly: false)
        do {
            try await build(store)
            try await engine.rename(to: target)
        } catch {
            try? await engine.dropNamespace()
            try? store.close()
            throw error
        }
        try store.close()
    }
}

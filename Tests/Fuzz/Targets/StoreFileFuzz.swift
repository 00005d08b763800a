// libFuzzer target: a store file of fuzzed bytes, opened and read by RestMapStore's own reading
// paths (compiled with Sources/RestMapStore, linked with the objects of the debug build and the
// system SQLite). A store file is input: any bytes must open and read, or fail with an error,
// never crash. The schema is Tests/Fuzz/Seeds/store/store.yaml; run.sh seeds the corpus with
// stores `restmap seed` built from it.

import Foundation
import GRDB
import RestMap

/// The mapper of the target's schema, built once.
private let fuzzMapper: Mapper = {
    let schema = ProcessInfo.processInfo.environment["RESTMAP_FUZZ_STORE_SCHEMA"] ?? "store.yaml"
    do { return try Schema.load(contentsOf: schema).mapper() } catch { fatalError("the store fuzz target's schema \(schema): \(error)") }
}()

/// The file the bytes are written to (one per process: libFuzzer runs inputs one at a time).
private let fuzzPath = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-fuzz-store-\(getpid()).sqlite").path

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(fuzzPath + suffix) }
    guard FileManager.default.createFile(atPath: fuzzPath, contents: Data(bytes: data, count: size)) else { fatalError("cannot write \(fuzzPath)") }
    defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(fuzzPath + suffix) } }
    guard let store = try? RecordStore(readingAt: fuzzPath, mapper: fuzzMapper) else { return 0 }
    defer { try? store.close() }
    // Total: a store read from a file path runs on the SQLite engine.
    let engine = store.engine as! SQLiteEngine
    let loader = RecordLoader(store: engine)
    // The synchronous forms of what RecordStore's reading methods run.
    for entity in store.model.layout.tables.map(\.entity) {
        _ = try? SQLiteEngine.naming(fuzzPath) { try engine.pool.read { db in try loader.records(StoreQuery(entity: entity, limit: 20, depth: 2), db) } }
    }
    _ = try? SQLiteEngine.naming(fuzzPath) {
        try engine.pool.read { db in
            try loader.records(StoreQuery(entity: "Note", filters: [("text", .string("a\u{0}b"))], order: [("price", false)], depth: 1), db)
        }
    }
    for path in ["/notes", "/owners"] {
        _ = try? SQLiteEngine.naming(fuzzPath) { try engine.pool.read { db in try loader.records(forPath: path, depth: 2, db) } }
    }
    if let terms = try? StoreModel.searchTerms("a"), let tables = try? store.model.searchTables(nil) {
        _ = try? SQLiteEngine.naming(fuzzPath) { try engine.pool.read { db in try loader.search(terms, tables: tables, limit: 10, depth: 1, db) } }
    }
    return 0
}

import Foundation
import RestMap
import RestMapDates
import RestMapPlugins
import RestMapSchema
import RestMapStore
import RestMapStorePostgres
import BenchmarkData

// Imports the ~20 MB GitHub-like array (19k repositories with nested owners) into a fresh
// PostgreSQL store, then again with every repository's stars changed (updates); in the same run,
// a Python json + psycopg peer (peer.py) does the same upserts into the same tables on the same
// server, both with COPY + INSERT … ON CONFLICT and with executemany. Then four writers at once,
// each importing a quarter of the array, against one writer importing the four quarters in turn.
// Last, the server's floor: the same rows inserted (and then updated) by the server alone, from
// its own tables, with no client and no transfer, parsing only the JSON values every client must
// send as text; no client can take less time than that, so peer time over floor time is the most
// any client could reach. Each database is new. Run:
//   [ROUNDS=3] swift run -c release PostgresStoreBenchmarks postgres://postgres@127.0.0.1:PORT/postgres [MEGABYTES]
// (pip install 'psycopg[binary]' first; .ci/run shows how to start a throwaway cluster).

let arguments = Array(CommandLine.arguments.dropFirst())
guard let serverURL = arguments.first else {
    print("usage: PostgresStoreBenchmarks postgres://user@host:port/database [MEGABYTES]")
    exit(2)
}
let megabytesWanted = arguments.dropFirst().first.flatMap(Int.init) ?? 20
let rounds = ProcessInfo.processInfo.environment["ROUNDS"].flatMap(Int.init) ?? 3

/// Runs a program to its end; its standard output.
func run(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "\(arguments.prefix(2)) failed")
    return text
}

/// A new database on the server: its URL.
func createDatabase() throws -> String {
    let name = "restmap_benchmark_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    _ = try run(["psql", serverURL, "-X", "-q", "-c", "CREATE DATABASE \(name)"])
    var components = URLComponents(string: serverURL)!
    components.path = "/" + name
    return components.string!
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-pg-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let (documents, files) = try writeImportDocuments(megabytes: megabytesWanted, to: folder)
let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("peer.py").path

var plugins = PluginRegistry()
try plugins.register(DatesPlugin.self)
let mapper = try Schema.load(bytes: Array(schemaText.utf8), file: "benchmark.yaml", options: SchemaLoadOptions(plugins: plugins)).mapper()
let jobs = ProcessInfo.processInfo.activeProcessorCount

/// The document's repositories in `parts` arrays of about equal size.
func split(_ document: [UInt8], parts: Int) -> [[UInt8]] {
    let text = String(decoding: document.dropFirst().dropLast(), as: UTF8.self)
    let items = text.components(separatedBy: #",{"id":"#).enumerated().map { $0.offset == 0 ? $0.element : #"{"id":"# + $0.element }
    let size = (items.count + parts - 1) / parts
    return stride(from: 0, to: items.count, by: size).map { Array(("[" + items[$0..<min($0 + size, items.count)].joined(separator: ",") + "]").utf8) }
}

var ours: [[Double]] = [[], []], oursCPU: [[Double]] = [[], []]
var theirs: [String: [[Double]]] = ["copy": [[], []], "executemany": [[], []]], theirsCPU = theirs
var summaries: [String] = []
var writers: [Int: [(wall: Double, cpu: Double)]] = [1: [], 4: []]
var floors: [[Double]] = [[], []]

/// Seconds the server takes to insert RestMap's stored rows into empty tables of the same
/// definition (indexes and foreign key included), then to change every repository's stars:
/// statement times as psql reports them. The rows come from tables on the server with every
/// column typed except the `jsonb` ones, held as text: any client's values for those are parsed
/// by the server (in the binary protocol as well), so that parsing belongs to the floor.
func serverFloor(_ database: String) throws -> (fresh: Double, updates: Double) {
    _ = try run(["psql", database, "-X", "-q", "-v", "ON_ERROR_STOP=1",
                 "-c", #"CREATE TABLE restmap.floor_owner (LIKE restmap."Owner" INCLUDING ALL)"#,
                 "-c", #"CREATE TABLE restmap.floor_repository (LIKE restmap."Repository" INCLUDING ALL)"#,
                 "-c", "ALTER TABLE restmap.floor_repository ADD FOREIGN KEY (owner) REFERENCES restmap.floor_owner (rm_id) ON DELETE SET NULL",
                 "-c", #"CREATE TABLE restmap.floor_owner_input AS SELECT rm_id, id, login::text AS login FROM restmap."Owner""#,
                 "-c", #"CREATE TABLE restmap.floor_repository_input AS SELECT rm_id, id, name::text AS name, "fullName"::text AS "fullName", "#
                    + #""isPrivate", description::text AS description, "isFork", "createdAt", "pushedAt", stars, language::text AS language, "#
                    + #"forks, owner FROM restmap."Repository""#])
    let output = try run(["psql", database, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "\\timing on", "-c", "BEGIN",
                          "-c", "INSERT INTO restmap.floor_owner (rm_id, id, login) SELECT rm_id, id, login::jsonb FROM restmap.floor_owner_input ORDER BY id",
                          "-c", #"INSERT INTO restmap.floor_repository (rm_id, id, name, "fullName", "isPrivate", description, "isFork", "createdAt", "#
                            + #""pushedAt", stars, language, forks, owner) SELECT rm_id, id, name::jsonb, "fullName"::jsonb, "isPrivate", "#
                            + #"description::jsonb, "isFork", "createdAt", "pushedAt", stars, language::jsonb, forks, owner "#
                            + "FROM restmap.floor_repository_input ORDER BY id",
                          "-c", "COMMIT", "-c", "BEGIN", "-c", "UPDATE restmap.floor_repository SET stars = stars + 1", "-c", "COMMIT"])
    let times = output.split(separator: "\n").compactMap { line -> Double? in
        guard line.hasPrefix("Time: ") else { return nil }
        return Double(line.dropFirst(6).prefix { $0 != " " }).map { $0 / 1000 }
    }
    precondition(times.count == 7, "psql printed \(times.count) times")
    return (times[1] + times[2] + times[3], times[5] + times[6])
}
let quarters = split(documents[0], parts: 4)
for round in 0..<rounds {
    // The round's databases, dropped at its end so that the server is the same size from one round to the next.
    var created: [String] = []
    func newDatabase() throws -> String {
        created.append(try createDatabase())
        return created[created.count - 1]
    }
    let database = try newDatabase()
    let store = try await RecordStore.open(postgres: database, mapper: mapper)
    for (pass, document) in documents.enumerated() {
        let response = Response(path: "/repositories", body: document)
        var summary = SaveSummary()
        let time = try await seconds {
            let result = try mapper.map(response, options: MappingOptions(jobs: jobs))
            precondition(result.errors.isEmpty)
            summary = try await store.save(result, of: response)
        }
        ours[pass].append(time.wall)
        oursCPU[pass].append(time.cpu)
        if round == 0 { summaries.append("\(summary)") }
    }
    try store.close()
    let floor = try serverFloor(database)
    floors[0].append(floor.fresh)
    floors[1].append(floor.updates)

    for mode in ["copy", "executemany"] {
        let peerDatabase = try newDatabase()
        try await RecordStore.open(postgres: peerDatabase, mapper: mapper).close()   // the same tables
        let output = try run(["python3", peer, peerDatabase, mode] + files)
        for (pass, line) in output.split(separator: "\n").enumerated() {
            let fields = line.split(separator: " ")
            theirs[mode]![pass].append(Double(fields[0])!)
            theirsCPU[mode]![pass].append(Double(fields[1])!)
        }
    }

    // One writer importing the four quarters in turn, then four writers (four stores) at once.
    for count in [1, 4] {
        let database = try newDatabase()
        let stores = try await (0..<count).asyncMap { _ in try await RecordStore.open(postgres: database, mapper: mapper) }
        let time = try await seconds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<count {
                    group.addTask {
                        for (index, quarter) in quarters.enumerated() where index % count == writer {
                            let response = Response(path: "/repositories", body: quarter)
                            try await stores[writer].save(try mapper.map(response), of: response)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        writers[count]!.append(time)
        for store in stores { try store.close() }
    }
    for url in created {
        let name = URLComponents(string: url)!.path.dropFirst()
        _ = try run(["psql", serverURL, "-X", "-q", "-c", "DROP DATABASE \(name) WITH (FORCE)"])
    }
}

extension Range where Bound == Int {
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for value in self { values.append(try await transform(value)) }
        return values
    }
}

let megabytes = Double(documents[0].count) / 1_048_576
print("document: \(String(format: "%.1f", megabytes)) MB; median of \(rounds) rounds, each into a new database; RestMap maps on \(jobs) threads")
print("first import:  \(summaries[0])")
print("second import: \(summaries[1])")
for (pass, name) in ["fresh import", "re-import (updates)"].enumerated() {
    let best = ["copy", "executemany"].min { median(theirs[$0]![pass]) < median(theirs[$1]![pass]) }!
    let peerTime = median(theirs[best]![pass]), ourTime = median(ours[pass])
    print("\(name): RestMap \(String(format: "%.1f", megabytes / ourTime)) MB/s; Python json+psycopg "
        + ["copy", "executemany"].map { "\($0) \(String(format: "%.1f", megabytes / median(theirs[$0]![pass]))) MB/s" }.joined(separator: ", ")
        + "; ratio to the faster (\(best)) \(String(format: "%.2f", peerTime / ourTime))x, in client CPU time "
        + "\(String(format: "%.2f", median(theirsCPU[best]![pass]) / median(oursCPU[pass])))x; "
        + "server floor \(String(format: "%.1f", megabytes / median(floors[pass]))) MB/s, so at most \(String(format: "%.2f", peerTime / median(floors[pass])))x for any client")
}
let one = writers[1]!, four = writers[4]!
print("writers (the fresh array in four quarters): 1 writer \(String(format: "%.1f", megabytes / median(one.map(\.wall)))) MB/s "
    + "(client CPU \(Int(median(one.map(\.cpu)) * 1000)) ms); 4 writers at once \(String(format: "%.1f", megabytes / median(four.map(\.wall)))) MB/s "
    + "(client CPU \(Int(median(four.map(\.cpu)) * 1000)) ms); 4 vs 1: \(String(format: "%.2f", median(one.map(\.wall)) / median(four.map(\.wall))))x")

import Foundation
import RestMap
import RestMapDates
import RestMapPlugins
import RestMapSchema
import RestMapStore
import BenchmarkData

// Imports the ~20 MB GitHub-like array of RestMapBenchmarks (19k repositories with nested owners)
// into a fresh store, then re-imports it with every repository's stars changed (updates), and
// does the same in the same run with a Python sqlite3 + json peer doing the same upserts into the
// same tables. Prints the ratios of wall-clock throughput and of CPU time (steadier while other
// processes share the cores). Run: swift run -c release StoreBenchmarks [MEGABYTES]

let megabytesWanted = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20
let rounds = 5

/// The peer: Python's json and sqlite3, the same tables (as RestMapStore creates them) and the
/// same upserts by identity, one transaction per document, with the durability RestMapStore's
/// connection has (WAL, `synchronous=NORMAL`, which GRDB sets; Python's default would sync the
/// WAL at every commit). Prints its own wall-clock and CPU seconds per document.
let pythonPeer = #"""
import json, sqlite3, sys, time
from datetime import datetime
db_path, files = sys.argv[1], sys.argv[2:]
db = sqlite3.connect(db_path, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=NORMAL")
db.execute("PRAGMA foreign_keys=ON")
db.executescript("""
CREATE TABLE IF NOT EXISTS Owner (rm_id INTEGER PRIMARY KEY, login ANY, id INTEGER) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS "Owner.identity" ON Owner (id);
CREATE TABLE IF NOT EXISTS Repository (rm_id INTEGER PRIMARY KEY, id INTEGER, name ANY, fullName ANY, isPrivate INTEGER,
  description ANY, isFork INTEGER, createdAt REAL, pushedAt REAL, stars INTEGER, language ANY, forks INTEGER,
  owner INTEGER REFERENCES Owner(rm_id) ON DELETE SET NULL) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS "Repository.identity" ON Repository (id);
CREATE INDEX IF NOT EXISTS "Repository.owner.fk" ON Repository (owner);
""")
def instant(text):
    return datetime.fromisoformat(text).timestamp()
for path in files:
    with open(path, "rb") as f:
        body = f.read()
    start, start_cpu = time.perf_counter(), time.process_time()
    repositories = json.loads(body)
    db.execute("BEGIN IMMEDIATE")
    owners = {}
    rows = []
    for r in repositories:
        o = r["owner"]
        owner = owners.get(o["id"])
        if owner is None:
            db.execute("INSERT INTO Owner (login, id) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET login = excluded.login",
                       (o["login"], o["id"]))
            owner = db.execute("SELECT rm_id FROM Owner WHERE id = ?", (o["id"],)).fetchone()[0]
            owners[o["id"]] = owner
        rows.append((r["id"], r["name"], r["full_name"], int(r["private"]), r["description"], int(r["fork"]),
                     instant(r["created_at"]), instant(r["pushed_at"]), r["stargazers_count"], r["language"],
                     r["forks_count"], owner))
    db.executemany("""INSERT INTO Repository (id, name, fullName, isPrivate, description, isFork, createdAt, pushedAt,
        stars, language, forks, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, fullName = excluded.fullName, isPrivate = excluded.isPrivate,
        description = excluded.description, isFork = excluded.isFork, createdAt = excluded.createdAt,
        pushedAt = excluded.pushedAt, stars = excluded.stars, language = excluded.language, forks = excluded.forks,
        owner = excluded.owner""", rows)
    db.execute("COMMIT")
    print(time.perf_counter() - start, time.process_time() - start_cpu, len(rows))
"""#


let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-store-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let (documents, files) = try writeImportDocuments(megabytes: megabytesWanted, to: folder)
let script = folder.appendingPathComponent("peer.py")
try pythonPeer.write(to: script, atomically: true, encoding: .utf8)

var plugins = PluginRegistry()
try plugins.register(DatesPlugin.self)
let mapper = try Schema.load(bytes: Array(schemaText.utf8), file: "benchmark.yaml", options: SchemaLoadOptions(plugins: plugins)).mapper()

/// RestMap maps with one thread, then with every core (what `restmap store import` does by default).
let jobCounts = [1, ProcessInfo.processInfo.activeProcessorCount]
var restMapTimes = jobCounts.map { _ in [[Double]](repeating: [], count: 2) }, restMapCPU = restMapTimes
var pythonTimes: [[Double]] = [[], []], pythonCPU: [[Double]] = [[], []]
var summaries: [[SaveSummary]] = jobCounts.map { _ in [] }
var savingShare = restMapTimes, mappingCPU = restMapTimes, savingCPU = restMapTimes
for round in 0..<rounds {
    for (variant, jobs) in jobCounts.enumerated() {
        let path = folder.appendingPathComponent("restmap-\(round)-\(jobs).sqlite").path
        let store = try RecordStore(path: path, mapper: mapper)
        for (pass, document) in documents.enumerated() {
            let response = Response(path: "/repositories", body: document)
            var result: MappingResult?
            let mapping = try await seconds { result = try mapper.map(response, options: MappingOptions(jobs: jobs)) }
            precondition(result?.errors.isEmpty == true, "\(result?.errors.prefix(3) ?? [])")
            let saving = try await seconds { summaries[variant].append(try await store.save(result!, of: response)) }
            restMapTimes[variant][pass].append(mapping.wall + saving.wall)
            restMapCPU[variant][pass].append(mapping.cpu + saving.cpu)
            savingShare[variant][pass].append(saving.wall / (mapping.wall + saving.wall))
            mappingCPU[variant][pass].append(mapping.cpu)
            savingCPU[variant][pass].append(saving.cpu)
        }
        try store.close()
    }

    let peer = Process()
    peer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    peer.arguments = ["python3", script.path, folder.appendingPathComponent("python-\(round).sqlite").path] + files
    let output = Pipe()
    peer.standardOutput = output
    try peer.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    peer.waitUntilExit()
    precondition(peer.terminationStatus == 0, "the Python peer failed")
    for (pass, line) in text.split(separator: "\n").enumerated() {
        let fields = line.split(separator: " ")
        pythonTimes[pass].append(Double(fields[0])!)
        pythonCPU[pass].append(Double(fields[1])!)
    }
}

let megabytes = Double(documents[0].count) / 1_048_576
print("document: \(String(format: "%.1f", megabytes)) MB; median of \(rounds) rounds, each into a fresh database")
print("first import:  \(summaries[0][0])")
print("second import: \(summaries[0][1])")
precondition(summaries.allSatisfy { "\($0)" == "\(summaries[0])" }, "mapping on several threads saved something else")
for (variant, jobs) in jobCounts.enumerated() {
    for (pass, name) in ["fresh import", "re-import (updates)"].enumerated() {
        let ours = median(restMapTimes[variant][pass]), theirs = median(pythonTimes[pass])
        print("\(name), mapping on \(jobs) thread\(jobs == 1 ? "" : "s"): RestMap \(String(format: "%.1f", megabytes / ours)) MB/s, "
            + "Python sqlite3+json \(String(format: "%.1f", megabytes / theirs)) MB/s, "
            + "ratio \(String(format: "%.2f", theirs / ours))x, in CPU time \(String(format: "%.2f", median(pythonCPU[pass]) / median(restMapCPU[variant][pass])))x "
            + "(saving is \(Int(median(savingShare[variant][pass]) * 100))% of RestMap's time; CPU ms: mapping \(Int(median(mappingCPU[variant][pass]) * 1000)), "
            + "saving \(Int(median(savingCPU[variant][pass]) * 1000)), peer \(Int(median(pythonCPU[pass]) * 1000)))")
    }
}

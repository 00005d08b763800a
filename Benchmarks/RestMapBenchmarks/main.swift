import Foundation
import RestMap
import RestMapDates
import RestMapPlugins
import RestMapSchema
import BenchmarkData

// Maps a generated ~20 MB GitHub-like array (nested owner, 2 dates, 27 fields per repository,
// 12 of them mapped) with RestMap and, in the same run, with JSONDecoder into hand-written
// Codable structs, and prints the throughput ratio. Run: swift run -c release RestMapBenchmarks

let megabytesWanted = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20
/// `--profile` maps with RestMap only, for a profiler.
let profileOnly = CommandLine.arguments.contains("--profile")
let rounds = 7


func time(_ body: () throws -> Int) rethrows -> (seconds: Double, count: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let count = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, count)
}

let document = makeDocument(megabytes: megabytesWanted)
let data = Data(document)
var plugins = PluginRegistry()
try plugins.register(DatesPlugin.self)
let mapper = try Schema.load(bytes: Array(schemaText.utf8), file: "benchmark.yaml", options: SchemaLoadOptions(plugins: plugins)).mapper()
let decoder = JSONDecoder()
decoder.dateDecodingStrategy = .iso8601

var restMapTimes: [Double] = []
var codableTimes: [Double] = []
var counts = (0, 0)
for _ in 0..<rounds {
    let restMap = try time {
        let result = try mapper.map(Response(path: "/repositories", body: document))
        precondition(result.errors.isEmpty, "\(result.errors.prefix(3))")
        return result.records.count
    }
    if profileOnly { continue }
    let codable = try time { try decoder.decode([Repository].self, from: data).count }
    precondition(restMap.count == codable.count, "RestMap mapped \(restMap.count), Codable decoded \(codable.count)")
    restMapTimes.append(restMap.seconds)
    codableTimes.append(codable.seconds)
    counts = (restMap.count, codable.count)
}

if profileOnly { exit(0) }
let megabytes = Double(document.count) / 1_048_576
let restMapRate = megabytes / median(restMapTimes)
let codableRate = megabytes / median(codableTimes)
print("document: \(String(format: "%.1f", megabytes)) MB, \(counts.0) repositories, 12 of 27 fields mapped, median of \(rounds) rounds")
print("RestMap:            \(String(format: "%7.1f", restMapRate)) MB/s")
print("JSONDecoder+Codable:\(String(format: "%7.1f", codableRate)) MB/s")
print("ratio RestMap / Codable: \(String(format: "%.2f", restMapRate / codableRate))x")

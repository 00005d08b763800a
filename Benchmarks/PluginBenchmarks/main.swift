// Plugin benchmarks: the cost of a transformer call through a loaded .so against the same
// transformer linked in process, the hand-written ISO 8601 parser against ISO8601DateFormatter,
// and the two ways a value can cross the ABI (tagged C struct against JSON text).
//
//   swift build -c release --product PluginBenchmarks --product restmap-dates
//   .build/release/PluginBenchmarks [iterations]
import Foundation
import RestMapDates
import RestMapPluginKit
import RestMapPluginLoader
import RestMapPlugins

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200_000
let rounds = 5

/// The best time per operation (ns) over `rounds` runs of `iterations` operations.
func measure(_ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    let clock = ContinuousClock()
    for _ in 0..<rounds {
        let elapsed = try clock.measure { for _ in 0..<iterations { try body() } }
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        best = min(best, nanoseconds / Double(iterations))
    }
    return best
}

struct Row {
    var name: String
    var baseline: (label: String, ns: Double)
    var candidate: (label: String, ns: Double)
}

/// B/A, and for a B faster than A also how many times faster.
func ratio(_ value: Double) -> String {
    value >= 1 ? String(format: "%.2fx", value) : String(format: "%.3fx (%.1fx faster)", value, 1 / value)
}

func printTable(_ rows: [Row]) {
    func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
    print(pad("benchmark", 34) + pad("A", 28) + pad("ns/op", 10) + pad("B", 26) + pad("ns/op", 10) + "B/A")
    for row in rows {
        print(pad(row.name, 34) + pad(row.baseline.label, 28) + pad(String(format: "%.1f", row.baseline.ns), 10)
            + pad(row.candidate.label, 26) + pad(String(format: "%.1f", row.candidate.ns), 10)
            + ratio(row.candidate.ns / row.baseline.ns))
    }
}

/// Runs every benchmark and prints the table.
func runBenchmarks() throws {
    guard let directory = PluginSearchPath.executableDirectory else { fatalError("cannot read /proc/self/exe") }
    var linked = PluginRegistry()
    try linked.register(DatesPlugin.self)
    var loaded = PluginRegistry()
    try loaded.load(named: "dates", searchPath: PluginSearchPath([directory]))

    func pair(_ name: String, _ arguments: [String: Value] = [:]) throws -> (any ValueTransformer, any ValueTransformer) {
        return (try linked.transformer(named: name)!.make(arguments), try loaded.transformer(named: name)!.make(arguments))
    }

    var rows: [Row] = []
    var sink = 0

    // 1. Transformer calls: in process against through the .so.
    let calls: [(String, String, Value, Bool)] = [
        ("dates.parse ISO 8601 string", "dates.parse", .string("2013-03-13T18:10:21.250Z"), false),
        ("dates.parse RFC 1123 string", "dates.parse", .string("Wed, 13 Mar 2013 18:10:21 GMT"), false),
        ("dates.unix integer", "dates.unix", .integer(1_363_198_221), false),
        ("dates.rfc1123 reverse (date)", "dates.rfc1123", .date(Date(timeIntervalSince1970: 1_363_198_221)), true),
    ]
    for (label, name, value, isReverse) in calls {
        let (inProcess, viaLibrary) = try pair(name)
        let a = try measure {
            let result = isReverse ? try inProcess.reverseTransform(value) : try inProcess.transform(value)
            if case .null = result { sink += 1 }
        }
        let b = try measure {
            let result = isReverse ? try viaLibrary.reverseTransform(value) : try viaLibrary.transform(value)
            if case .null = result { sink += 1 }
        }
        rows.append(Row(name: label, baseline: ("linked in process", a), candidate: ("loaded .so (C ABI)", b)))
    }

    // 2. ISO 8601: the hand-written parser against Foundation's formatter, over varied instants.
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    let fractionalFormatter = ISO8601DateFormatter()
    fractionalFormatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let instants = (0..<1024).map { Date(timeIntervalSince1970: 946_684_800 + Double($0) * 987_654.321) }
    let plainTexts = instants.map { formatter.string(from: $0) }
    let fractionalTexts = instants.map { fractionalFormatter.string(from: $0) }
    var index = 0
    for (label, texts, foundation) in [
        ("ISO 8601 parse (seconds)", plainTexts, formatter), ("ISO 8601 parse (fractional)", fractionalTexts, fractionalFormatter),
    ] {
        let a = measure {
            index = (index + 1) & 1023
            if foundation.date(from: texts[index]) == nil { sink += 1 }
        }
        let b = measure {
            index = (index + 1) & 1023
            if ISO8601Parser.parse(texts[index]) == nil { sink += 1 }
        }
        rows.append(Row(name: label, baseline: ("ISO8601DateFormatter", a), candidate: ("hand-written parser", b)))
    }

    // 3. How a value crosses the boundary: tagged C struct against JSON text (round trip).
    for (label, value) in [("string value", Value.string("2013-03-13T18:10:21Z")), ("integer value", Value.integer(1_363_198_221))] {
        let json = measure {
            var bytes: [UInt8] = []
            JSONText.write(value, into: &bytes)
            let back = try? bytes.withUnsafeBufferPointer { try JSONText.parse($0) }
            if back == nil { sink += 1 }
        }
        let tagged = measure {
            let back = CValueBridge.withCValue(value) { try? CValueBridge.value(from: $0.pointee) }
            if back == nil { sink += 1 }
        }
        rows.append(Row(name: "ABI crossing, \(label)", baseline: ("JSON text", json), candidate: ("tagged C struct", tagged)))
    }

    print("PluginBenchmarks: \(iterations) operations per round, best of \(rounds) rounds; B/A = B's time over A's")
    printTable(rows)
    if sink == Int.min { print(sink) }
}

try runBenchmarks()

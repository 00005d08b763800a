import Foundation
import RestMapJSON

extension RecordWriter {
    /// The fewest records `output(_:format:pretty:jobs:)` renders on several threads.
    static let parallelRecordCount = 4096

    /// `output(_:format:pretty:)` rendered on up to `jobs` threads: JSON (not pretty) and NDJSON
    /// of many records of one mapping are written in contiguous runs, one per thread, and joined.
    /// The bytes are the same as with one thread.
    ///
    /// Each run reads a graph of its own (a copy of the record list and the schema compiled
    /// again), so the threads do not update the reference counts of one shared list and plan.
    public static func output(_ records: [Record], format: RecordFormat, pretty: Bool = false, jobs: Int) -> [UInt8] {
        guard jobs > 1, !pretty, format != .csv, records.count >= parallelRecordCount,
              let graph = records.first?.graph, records.allSatisfy({ $0.graph === graph }) else {
            return output(records, format: format, pretty: pretty)
        }
        let indices = records.map(\.index)
        let runLength = (indices.count + jobs - 1) / jobs
        let runs = stride(from: 0, to: indices.count, by: runLength).map { Array(indices[$0..<min($0 + runLength, indices.count)]) }
        // The first run reads the graph itself; the others copies.
        let graphs = [graph] + runs.dropFirst().map { _ in
            RecordGraph(plan: graph.plan.compiledAgain(), records: graph.records.map { $0 })
        }
        var rendered = [[UInt8]](repeating: [], count: runs.count)
        rendered.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            DispatchQueue.concurrentPerform(iterations: runs.count) { run in
                var writer = JSONWriter()
                var path: [Int] = []
                for (position, index) in runs[run].enumerated() {
                    if format == .json, position > 0 { writer.comma() }
                    write(Record(graph: graphs[run], index: index), to: &writer, path: &path)
                    if format == .ndjson { writer.endLine() }
                }
                slots[run] = writer.bytes
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rendered.reduce(3) { $0 + $1.count + 1 })
        if format == .json { bytes.append(UInt8(ascii: "[")) }
        for (run, part) in rendered.enumerated() {
            if format == .json, run > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += part
        }
        if format == .json { bytes += [UInt8(ascii: "]"), 0x0A] }
        return bytes
    }
}

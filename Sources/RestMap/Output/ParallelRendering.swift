import RestMapJSON

extension RecordWriter {
    /// The fewest records `output(_:format:pretty:jobs:)` renders on several threads.
    static let parallelRecordCount = 4096

    /// `output(_:format:pretty:)` rendered on up to `jobs` threads: JSON (not pretty) and NDJSON
    /// of many records of one mapping are written in contiguous runs, one per thread, and joined.
    /// The bytes are the same as with one thread.
    public static func output(_ records: [Record], format: RecordFormat, pretty: Bool = false, jobs: Int) -> [UInt8] {
        let pieces = outputPieces(records, format: format, pretty: pretty, jobs: jobs)
        if pieces.count == 1 { return pieces[0] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { bytes += piece }
        return bytes
    }

    /// `output(_:format:pretty:jobs:)` as the pieces it joins, in order: write them one after
    /// another to spare the copy into one buffer. `profile` learns the CPU time of rendering.
    ///
    /// The runs are rendered on the library's thread pool (`OrderedWorkers`); each reads a graph of
    /// its own (a copy of the record list and the schema compiled again), so the threads do not
    /// update the reference counts of one shared list and plan.
    public static func outputPieces(_ records: [Record], format: RecordFormat, pretty: Bool = false, jobs: Int,
                                    profile: StageProfile? = nil) -> [[UInt8]] {
        guard jobs > 1, !pretty, format != .csv, records.count >= parallelRecordCount,
              let graph = records.first?.graph, records.allSatisfy({ $0.graph === graph }) else {
            return [profile.measure(.render) { output(records, format: format, pretty: pretty) }]
        }
        let indices = records.map(\.index)
        let runLength = (indices.count + jobs - 1) / jobs
        let runs = stride(from: 0, to: indices.count, by: runLength).map { Array(indices[$0..<min($0 + runLength, indices.count)]) }
        // The first run reads the graph itself; the others copies.
        let graphs = [graph] + runs.dropFirst().map { _ in
            RecordGraph(plan: graph.plan.compiledAgain(), records: graph.records.map { $0 })
        }
        let rendered = OrderedWorkers.map(Array(zip(graphs, runs)), workers: graphs.map { _ in () }, profile: profile) { _, run in
            profile.measure(.render) {
                var writer = JSONWriter()
                var path: [Int] = []
                for (position, index) in run.1.enumerated() {
                    if format == .json, position > 0 { writer.comma() }
                    write(Record(graph: run.0, index: index), to: &writer, path: &path)
                    if format == .ndjson { writer.endLine() }
                    writer.reserveAhead()
                }
                return writer.bytes
            }
        }
        guard format == .json else { return rendered }
        // JSON: the runs between brackets, a comma between two runs.
        var pieces: [[UInt8]] = [[UInt8(ascii: "[")]]
        for (run, part) in rendered.enumerated() {
            if run > 0 { pieces.append([UInt8(ascii: ",")]) }
            pieces.append(part)
        }
        pieces.append([UInt8(ascii: "]"), 0x0A])
        return pieces
    }
}

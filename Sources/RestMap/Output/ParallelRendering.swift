import RestMapJSON

extension RecordWriter {
    /// The fewest records `write(_:format:pretty:jobs:profile:to:)` renders on several threads.
    static let parallelRecordCount = 4096
    /// About how many bytes of output are rendered before they are handed to `write`.
    static let chunkBytes = 1 << 20
    /// The records of one run rendered by one thread of the pool.
    static let runRecordCount = 2048

    /// `output(_:format:pretty:)` rendered on up to `jobs` threads: JSON (not pretty) and NDJSON
    /// of many records of one mapping are written in contiguous runs, one per thread, and joined.
    /// The bytes are the same as with one thread.
    public static func output(_ records: [Record], format: RecordFormat, pretty: Bool = false, jobs: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        write(records, format: format, pretty: pretty, jobs: jobs) { bytes += $0 }
        return bytes
    }

    /// Renders records as `output(_:format:pretty:)` does and hands the bytes to `write` in
    /// chunks of about a megabyte, in order, as they are rendered: the output never sits in memory
    /// whole, and the chunk's buffer is reused (a buffer as large as the output cost more in
    /// clearing fresh pages than rendering into it). `profile` learns the CPU time of rendering.
    ///
    /// JSON (not pretty) and NDJSON of many records of one mapping are rendered in runs on up to
    /// `jobs` threads of the library's pool (`OrderedWorkers`), and handed over in order; each
    /// thread reads a graph of its own (a copy of the record list and the schema compiled again),
    /// so the threads do not update the reference counts of one shared list and plan. The bytes
    /// are the same as with one thread. CSV and pretty JSON are rendered whole, then handed over.
    public static func write(_ records: [Record], format: RecordFormat, pretty: Bool = false, jobs: Int = 1,
                             profile: StageProfile? = nil, to write: (UnsafeRawBufferPointer) -> Void) {
        guard !pretty, format != .csv, let graph = records.first?.graph, records.allSatisfy({ $0.graph === graph }) else {
            let bytes = profile.measure(.render) { output(records, format: format, pretty: pretty) }
            bytes.withUnsafeBytes(write)
            return
        }
        let indices = records.map(\.index)
        let open: [UInt8] = format == .json ? [UInt8(ascii: "[")] : []
        open.withUnsafeBytes(write)
        guard jobs > 1, records.count >= parallelRecordCount else {
            var writer = JSONWriter(capacity: chunkBytes + chunkBytes / 4)
            var path: [Int] = []
            var position = 0
            while position < indices.count {
                profile.measure(.render) {
                    while position < indices.count, writer.byteCount < chunkBytes {
                        if format == .json, position > 0 { writer.comma() }
                        Self.write(Record(graph: graph, index: indices[position]), to: &writer, path: &path)
                        if format == .ndjson { writer.endLine() }
                        position += 1
                    }
                }
                writer.withBytes { write(UnsafeRawBufferPointer($0)) }
                writer.removeAll()
            }
            close(format: format, write)
            return
        }
        // The first thread reads the graph itself; each other one a copy it makes as it starts.
        var nextRun = 0
        OrderedWorkers(threads: jobs, profile: profile, worker: { thread in
            thread == 0 ? graph : profile.measure(.render) { RecordGraph(plan: graph.plan.compiledAgain(), records: graph.records.map { $0 }) }
        }) { (graph: RecordGraph, run: Range<Int>) -> JSONWriter in
            profile.measure(.render) {
                var writer = JSONWriter(capacity: chunkBytes)
                var path: [Int] = []
                for position in run {
                    if format == .json, position > 0 { writer.comma() }
                    Self.write(Record(graph: graph, index: indices[position]), to: &writer, path: &path)
                    if format == .ndjson { writer.endLine() }
                }
                return writer
            }
        }.run(next: { () -> Range<Int>? in
            guard nextRun < indices.count else { return nil }
            defer { nextRun += runRecordCount }
            return nextRun..<min(nextRun + runRecordCount, indices.count)
        }, take: { writer in
            writer.withBytes { write(UnsafeRawBufferPointer($0)) }
        })
        close(format: format, write)
    }

    /// The end of a JSON array and its newline.
    private static func close(format: RecordFormat, _ write: (UnsafeRawBufferPointer) -> Void) {
        guard format == .json else { return }
        let close: [UInt8] = [UInt8(ascii: "]"), 0x0A]
        close.withUnsafeBytes(write)
    }
}

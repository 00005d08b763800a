import RestMapJSON

extension RecordWriter {
    /// Maps a stream with `mapper` and writes its records as one JSON array or as NDJSON, in input
    /// order, as each batch is mapped: byte for byte what `output(_:format:)` writes for the
    /// records `Mapper.mapStream` delivers, in bounded memory.
    ///
    /// Each batch is rendered on the thread that mapped it and its records are let go there, so
    /// with several `options.jobs` the calling thread only reads, checks identities and writes.
    ///
    /// - Parameters:
    ///   - request: the request and response metadata (its `body` is ignored).
    ///   - write: called with the next output bytes, in order. For JSON the array's brackets are
    ///     included, and the closing `]` is written even when broken framing ends the stream, so
    ///     the output holds every record delivered before it.
    ///   - failed: called after a batch's output with the elements or records of it that failed.
    public static func writeStream(_ request: Response, from source: some JSONByteSource, mapper: Mapper, options: StreamOptions,
                                   format: StreamOutputFormat, write: (ArraySlice<UInt8>) -> Void,
                                   failed: ([StreamedError]) -> Void) throws(StreamingFailure) {
        var options = options
        options.renderFormat = format
        var output = StreamOutput(format: format)
        do {
            try mapper.streamBatches(request, from: source, options: options) { batch in
                output.write(batch, to: write)
                if batch.hasErrors { failed(batch.elements.flatMap(\.errors)) }
            }
        } catch {
            // Refusals come before anything is read: only a stream that started is closed.
            if case .malformed = error { output.finish(write) }
            throw error
        }
        output.finish(write)
    }
}

/// How streamed records are rendered for output.
public enum StreamOutputFormat: Sendable {
    /// One JSON array, byte for byte what `RecordWriter.json` writes for the same records, then a newline.
    case json
    /// One JSON object per line.
    case ndjson
}

extension MappedBatch {
    /// Renders every record into `bytes`, on the thread that mapped them, and notes each record's
    /// range: for JSON a `,` first (`StreamOutput` drops it before the stream's first record) and
    /// between records; for NDJSON a newline after each.
    mutating func render(as format: StreamOutputFormat) {
        var writer = JSONWriter()
        var wroteRecord = false
        if format == .json { writer.comma() }
        for index in elements.indices {
            elements[index].rendered = elements[index].records.map { record in
                if format == .json, wroteRecord { writer.comma() }
                wroteRecord = true
                let start = writer.byteCount
                RecordWriter.write(record, to: &writer)
                defer { if format == .ndjson { writer.endLine() } }
                return start..<writer.byteCount
            }
        }
        bytes = wroteRecord ? writer.bytes : []
    }
}

/// Puts rendered batches out in order: the JSON array's brackets and the commas between batches,
/// and only the records of elements not left out (`MappedElement.isLeftOut`).
struct StreamOutput {
    let format: StreamOutputFormat
    private var started = false
    private var wroteRecord = false

    init(format: StreamOutputFormat) {
        self.format = format
    }

    mutating func write(_ batch: MappedBatch, to write: (ArraySlice<UInt8>) -> Void) {
        start(write)
        guard !batch.bytes.isEmpty else { return }
        if !batch.hasLeftOut {
            // The usual case: the batch's rendering goes out as it is, without a copy.
            write(format == .json && !wroteRecord ? batch.bytes[1...] : batch.bytes[...])
            wroteRecord = true
            return
        }
        var output: [UInt8] = []
        for element in batch.elements where !element.isLeftOut {
            for range in element.rendered {
                if format == .json, wroteRecord { output.append(UInt8(ascii: ",")) }
                output += batch.bytes[range]
                if format == .ndjson { output.append(0x0A) }
                wroteRecord = true
            }
        }
        if !output.isEmpty { write(output[...]) }
    }

    /// Closes the output (the JSON array's `]` and a newline).
    mutating func finish(_ write: (ArraySlice<UInt8>) -> Void) {
        start(write)
        if format == .json { write(Array("]\n".utf8)[...]) }
    }

    private mutating func start(_ write: (ArraySlice<UInt8>) -> Void) {
        guard !started else { return }
        started = true
        if format == .json { write([UInt8(ascii: "[")][...]) }
    }
}

import ArgumentParser
import FoundationEssentials
import Glibc
import RestMap
import RestMapCLICore
import RestMapJSON

/// `restmap map` options that map the body as a stream, in bounded memory.
struct StreamingOptions: ParsableArguments {
    enum InputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, ndjson
    }

    @Option(name: .long, help: ArgumentHelp(
        "Input format: json, or ndjson (one response body per line, or with --entity one representation per line; streamed)."))
    var input: InputFormat = .json

    @Flag(name: .long, help: "Map the body's array (at the matched descriptor's key path) element by element in bounded memory, whatever its size.")
    var stream = false

    @Flag(name: .customLong("no-stream"), help: "Map the body whole, however large (a large body streams by default when the schema allows).")
    var noStream = false

    /// The environment variable setting the size above which a body streams by default.
    static let thresholdVariable = "RESTMAP_STREAM_THRESHOLD"
    /// The size above which a body streams by default: 64 MiB (mapped whole, such a body takes
    /// about twice its size in memory; streamed, a few megabytes).
    static let defaultThreshold = 64 << 20

    /// The size in bytes above which a body streams by default: `RESTMAP_STREAM_THRESHOLD`, or 64 MiB.
    static func threshold() throws -> Int {
        guard let text = ProcessEnvironment.value(thresholdVariable) else { return defaultThreshold }
        guard let bytes = Int(text), bytes >= 0 else {
            throw ValidationError("\(thresholdVariable) takes a number of bytes, found '\(text)'")
        }
        return bytes
    }

    @Option(name: .long, help: ArgumentHelp("With --input ndjson: each line is one representation of this entity.", valueName: "entity"))
    var entity: String?

    @OptionGroup var threads: JobsOption
    var jobs: Int { threads.jobs }

    @Flag(name: .long, help: "With --input ndjson --format ndjson: reload the schema file when it changes (a version with errors is reported and not used).")
    var watch = false

    var isStreaming: Bool { stream || input == .ndjson }

    func validate() throws {
        if entity != nil, input != .ndjson { throw ValidationError("--entity needs --input ndjson") }
        if watch, input != .ndjson { throw ValidationError("--watch needs --input ndjson") }
        if noStream, isStreaming { throw ValidationError("--no-stream maps the body whole: it cannot go with --stream or --input ndjson") }
    }

    var streamInput: StreamInput {
        switch (input, entity) {
        case (.ndjson, let entity?): .representations(entity: entity)
        case (.ndjson, nil): .bodies
        case (.json, _): .array
        }
    }
}

extension MapCommand {
    /// Maps the body as a stream, writing records as their batch is mapped: from `descriptor` after
    /// `prefix` (bytes already read from it), or from the body the arguments name.
    func mapStream(with mapper: Mapper, descriptor given: Int32? = nil, prefix: [UInt8] = [], profile: StageProfile? = nil) throws {
        let format: StreamOutputFormat
        switch output.format {
        case .json: format = .json
        case .ndjson: format = .ndjson
        case .csv: throw ValidationError("--format csv is not available when streaming: its header needs every record first")
        }
        if output.pretty { throw ValidationError("--pretty is not available when streaming") }
        if strict { throw ValidationError("--strict is not available when streaming: records are written before later ones fail") }
        let descriptor = try given ?? CommandInput.open(body)
        defer { if given == nil, descriptor != 0 { close(descriptor) } }
        if streaming.watch {
            guard format == .ndjson else { throw ValidationError("--watch writes records line by line: add --format ndjson") }
            return try mapWatching(descriptor: descriptor)
        }
        var failed = false
        do {
            let source = BodySource(prefix: prefix, descriptor: descriptor, maximumBytes: maxBody)
            let options = StreamOptions(input: streaming.streamInput, jobs: jobs(profile),
                                        maximumElementBytes: maxBody ?? CommandInput.defaultMaximumBytes, profile: profile)
            try RecordWriter.writeStream(try response(body: []), from: source, mapper: mapper, options: options, format: format,
                                         write: { bytes in profile.measure(.write) { Terminal.write(bytes) } },
                                         failed: { errors in
                                             for error in errors { Terminal.error("restmap: record failed: \(error)\n") }
                                             failed = true
                                         })
        } catch {
            if case .mapping(let failure)? = error as? StreamingFailure {
                Terminal.error("restmap: \(Self.explain(failure, schema: mapper.schema))\n")
            } else {
                Terminal.error("restmap: \(error)\n")
            }
            throw ExitCode.failure
        }
        if failed { throw ExitCode.failure }
    }
}

/// A streamed body: bytes already read from a descriptor, then the rest of it; more than
/// `maximumBytes` in all (when given) ends the stream with an error as soon as it is read.
struct BodySource: JSONByteSource {
    private let prefix: [UInt8]
    private var prefixPosition = 0
    private var rest: FileDescriptorSource
    private let maximumBytes: Int?
    private var bytesRead = 0

    init(prefix: [UInt8], descriptor: Int32, maximumBytes: Int?) {
        self.prefix = prefix
        self.rest = FileDescriptorSource(descriptor: descriptor)
        self.maximumBytes = maximumBytes
    }

    /// The whole body, the bytes already read included, when the descriptor is a regular file
    /// and no `--max-body` limit has to be counted as it is read.
    var positional: JSONPositionalBytes? {
        guard maximumBytes == nil, bytesRead == 0, let rest = rest.positional else { return nil }
        return JSONPositionalBytes(descriptor: rest.descriptor, from: rest.start - prefix.count)
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int {
        // One byte past the limit is read to tell "exactly the limit" from "more".
        let room = maximumBytes.map { min(buffer.count, $0 + 1 - bytesRead) } ?? buffer.count
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[..<room])
        let count: Int
        if prefixPosition < prefix.count {
            count = min(target.count, prefix.count - prefixPosition)
            prefix.withUnsafeBytes { target.baseAddress?.copyMemory(from: $0.baseAddress! + prefixPosition, byteCount: count) }
            prefixPosition += count
        } else {
            count = try rest.read(into: target)
        }
        bytesRead += count
        if let maximumBytes, bytesRead > maximumBytes {
            throw JSONStreamError(message: "the body is larger than \(maximumBytes) bytes, the most --max-body allows: "
                                    + "reading stopped after \(bytesRead) bytes", offset: maximumBytes, element: nil, isMalformed: false)
        }
        return count
    }
}

extension MapCommand {
    /// Maps NDJSON line by line, each line with the schema's latest clean version.
    private func mapWatching(descriptor: Int32) throws {
        let reloading: ReloadingMapper
        do { reloading = try ReloadingMapper(contentsOf: schema, options: plugins.loadOptions) } catch {
            Terminal.error(error.description + "\n")
            throw ExitCode.failure
        }
        reloading.startWatching { outcome in
            switch outcome {
            case .swapped(let version): Terminal.error("restmap: schema reloaded (version \(version))\n")
            case .rejected:
                Terminal.error("restmap: schema change not used, still mapping with the previous version:\n\(reloading.rejection?.description ?? "")\n")
            case .unchanged: break
            }
        }
        let request = try response(body: [])
        var failed = false
        var reader = LineReader(descriptor: descriptor)
        var number = 0
        while let line = reader.next() {
            number += 1
            do {
                // A line is one batch: its reading buffer is the line's size, not the default megabyte.
                let options = StreamOptions(input: streaming.streamInput, jobs: 1, batchBytes: max(line.count, 1))
                try RecordWriter.writeStream(request, from: InMemorySource(line), mapper: reloading.current, options: options,
                                             format: .ndjson, write: { Terminal.write($0) }, failed: { errors in
                                                 for var error in errors {
                                                     error.line = number
                                                     Terminal.error("restmap: record failed: \(error)\n")
                                                 }
                                                 failed = true
                                             })
            } catch {
                Terminal.error("restmap: line \(number): \(error)\n")
                failed = true
            }
        }
        reloading.stopWatching()
        if failed { throw ExitCode.failure }
    }
}

/// Reads lines from a file descriptor as they arrive (for interactive pipes).
struct LineReader {
    let descriptor: Int32
    private var pending: [UInt8] = []
    /// Where the unread part of `pending` starts (lines are not shifted out one by one).
    private var start = 0
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 65536)

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line without its newline; `nil` at the end of the input.
    mutating func next() -> [UInt8]? {
        while true {
            if let newline = pending[start...].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                return Array(pending[start..<newline])
            }
            if atEnd {
                guard start < pending.count else { return nil }
                defer { (pending, start) = ([], 0) }
                return Array(pending[start...])
            }
            pending.removeFirst(start) // once per read, not per line
            start = 0
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { atEnd = true } else { pending += chunk[..<count] }
        }
    }
}

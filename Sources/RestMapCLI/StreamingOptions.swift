import ArgumentParser
import Foundation
import RestMap
import RestMapJSON

/// `restmap map` options that map the body as a stream, in bounded memory.
struct StreamingOptions: ParsableArguments {
    enum InputFormat: String, ExpressibleByArgument, CaseIterable {
        case json, ndjson
    }

    @Option(name: .long, help: ArgumentHelp(
        "Input format: json, or ndjson (one response body per line, or with --entity one representation per line; streamed)."))
    var input: InputFormat = .json

    @Flag(name: .long, help: "Map the body's array (at the matched descriptor's key path) element by element in bounded memory.")
    var stream = false

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
    /// Maps the body as a stream, writing records as their batch is mapped.
    func mapStream(with mapper: Mapper) throws {
        let format: StreamOutputFormat
        switch output.format {
        case .json: format = .json
        case .ndjson: format = .ndjson
        case .csv: throw ValidationError("--format csv is not available when streaming: its header needs every record first")
        }
        if output.pretty { throw ValidationError("--pretty is not available when streaming") }
        if strict { throw ValidationError("--strict is not available when streaming: records are written before later ones fail") }
        let descriptor = try CommandInput.open(body)
        defer { if descriptor != 0 { close(descriptor) } }
        if streaming.watch {
            guard format == .ndjson else { throw ValidationError("--watch writes records line by line: add --format ndjson") }
            return try mapWatching(descriptor: descriptor)
        }
        var failed = false
        do {
            try mapper.mapStream(try response(body: []), from: FileDescriptorSource(descriptor: descriptor),
                                 options: StreamOptions(input: streaming.streamInput, format: format, jobs: streaming.jobs,
                                                        keepsRecords: false)) { batch in
                Terminal.write(batch.output)
                for error in batch.errors { Terminal.error("restmap: record failed: \(error)\n") }
                failed = failed || !batch.errors.isEmpty
            }
        } catch {
            Terminal.error("restmap: \(error)\n")
            throw ExitCode.failure
        }
        if failed { throw ExitCode.failure }
    }
}

extension MapCommand {
    /// Maps NDJSON line by line, each line with the schema's latest clean version.
    private func mapWatching(descriptor: Int32) throws {
        let reloading: ReloadingMapper
        do { reloading = try ReloadingMapper(contentsOf: schema, pluginPaths: plugins.pluginPaths) } catch {
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
                let options = StreamOptions(input: streaming.streamInput, format: .ndjson, jobs: 1, batchBytes: max(line.count, 1))
                try reloading.current.mapStream(request, from: InMemorySource(line), options: options) { batch in
                    Terminal.write(batch.output)
                    for var error in batch.errors {
                        error.line = number
                        Terminal.error("restmap: record failed: \(error)\n")
                    }
                    failed = failed || !batch.errors.isEmpty
                }
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
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { atEnd = true } else { pending += chunk[..<count] }
        }
    }
}

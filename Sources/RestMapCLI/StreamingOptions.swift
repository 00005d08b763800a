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

    @Option(name: .long, help: "Batches mapped in parallel when streaming (default: the number of cores); output keeps input order.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    var isStreaming: Bool { stream || input == .ndjson }

    func validate() throws {
        if entity != nil, input != .ndjson { throw ValidationError("--entity needs --input ndjson") }
        if jobs < 1 { throw ValidationError("--jobs takes a positive number, found \(jobs)") }
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
        switch self.format {
        case .json: format = .json
        case .ndjson: format = .ndjson
        case .csv: throw ValidationError("--format csv is not available when streaming: its header needs every record first")
        }
        if pretty { throw ValidationError("--pretty is not available when streaming") }
        if strict { throw ValidationError("--strict is not available when streaming: records are written before later ones fail") }
        let descriptor: Int32
        if let body, body != "-" {
            descriptor = open(body, O_RDONLY)
            guard descriptor >= 0 else { throw ValidationError("cannot read the body file '\(body)'") }
        } else {
            descriptor = 0
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var failed = false
        do {
            try mapper.mapStream(try response(body: []), from: FileDescriptorSource(descriptor: descriptor),
                                 options: StreamOptions(input: streaming.streamInput, format: format, jobs: streaming.jobs)) { batch in
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

extension Terminal {
    /// Writes bytes to standard output as they are.
    static func write(_ bytes: [UInt8]) {
        var written = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Foundation.write(1, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                written += count
            }
        }
    }
}

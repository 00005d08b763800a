import ArgumentParser
import FoundationEssentials
import Glibc
import RestMap
import RestMapAuthoring
import RestMapCLICore
import RestMapJSON
import RestMapPluginKit
import RestMapSchema

/// `restmap map`: maps a response body with a schema and prints the root records.
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Map a response body with a schema and print the records.",
        discussion: """
            Reads the body from BODY-FILE, or from standard input when it is '-' or omitted. Records print \
            as JSON objects with "$entity" first; errors of individual records go to standard error and make \
            the exit status 1 (the other records still print). A .csv body is read as text/csv.

            A body larger than 64 MiB (RESTMAP_STREAM_THRESHOLD, in bytes) is streamed when the schema \
            allows it and the output is JSON or NDJSON: the same records print in bounded memory (see \
            Docs/Pipelines.md). --stream streams any body, --no-stream maps any body whole. A large array in a \
            file is read in parts by the mapping threads rather than held whole. A body over \
            --max-body bytes is refused as soon as that many bytes and one more have been read.

            Examples (run from the repository's root):
              restmap map --schema Schemas/tasks.yaml --path /task_list \\
                Samples/tasks/task_list.json
              restmap map --schema Schemas/github.yaml --format ndjson \\
                --path /users/octocat/starred Samples/github/starred.json
            """
    )

    @Option(name: .long, help: "The schema file.")
    var schema: String

    @Option(name: .long, help: "The request method.")
    var method = "GET"

    @Option(name: .long, help: "The request path, relative to the schema's baseURL (a query string is allowed).")
    var path: String?

    @Option(name: .long, help: ArgumentHelp(
        "The full request URL (@metadata.HTTP.request.URL); its path is the request path unless --path is given. Default: baseURL + path.",
        valueName: "url"))
    var url: String?

    @Option(name: .long, help: "The response status code.")
    var status = 200

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A response header.", valueName: "name:value"))
    var header: [String] = []

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A request header (@metadata.HTTP.request.headers).", valueName: "name:value"))
    var requestHeader: [String] = []

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A routing parameter (@metadata.routing.parameters).", valueName: "name=value"))
    var param: [String] = []

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("User metadata (@metadata.user).", valueName: "name=value"))
    var metadata: [String] = []

    @OptionGroup var output: RecordOutputOptions

    @Flag(name: .long, help: "Fail without output when any record fails to map.")
    var strict = false


    @OptionGroup var plugins: PluginOptions

    @OptionGroup var streaming: StreamingOptions

    @Option(name: .customLong("max-body"), help: ArgumentHelp(
        "Refuse a body larger than this many bytes, as soon as it is seen (default when mapped whole, and the most: \(CommandInput.defaultMaximumBytes); streamed: no limit, one element or line at most that).",
        valueName: "bytes"))
    var maxBody: Int?

    @Flag(name: .long, help: "Say on standard error whether the body is streamed or mapped whole, and on how many threads.")
    var verbose = false

    @Flag(name: .long, help: ArgumentHelp(
        "Print on standard error where the CPU time went: per stage (read, pread, cut, split, scan, parse, map, claim, merge, order, render, write) and thread, the serial fraction and the speed-ups it predicts (also RESTMAP_PROFILE=1; --jobs above the cores is then kept as given; see Docs/Pipelines.md)."))
    var profile = false

    @Argument(help: ArgumentHelp("The response body; '-' or nothing reads standard input.", valueName: "BODY-FILE"))
    var body: String?

    func validate() throws {
        if let maxBody, !(1...CommandInput.defaultMaximumBytes).contains(maxBody) {
            throw ValidationError("--max-body takes a number of bytes from 1 to \(CommandInput.defaultMaximumBytes), found \(maxBody)")
        }
        _ = try StreamingOptions.threshold()
    }

    func run() throws {
        if body == nil, isatty(0) == 1, !streaming.watch {
            throw ValidationError("""
                restmap map expects a response body: name the file (restmap map --schema api.yaml --path /users users.json), \
                or pipe it to standard input
                """)
        }
        let descriptor: Int32
        do { descriptor = try CommandInput.open(body) } catch {
            // A broken schema is reported first, as when the body is read while the schema loads.
            _ = try plugins.mapper(for: schema)
            throw error
        }
        defer { if descriptor != 0 { close(descriptor) } }
        let profile = profile || ProcessEnvironment.value("RESTMAP_PROFILE") == "1" ? StageProfile() : nil
        defer {
            if let profile { Terminal.error(profile.report(totalCPU: StageProfile.processCPU(), callerCPU: StageProfile.threadCPU())) }
        }
        let source = CommandInput.describe(descriptor, path: body)
        let size = CommandInput.regularFileSize(descriptor)
        if let size, let maxBody, size > maxBody {
            try refuse(CommandInput.InputTooLarge(what: "body", source: source, maximumBytes: maxBody, fileSize: size, bytesRead: 0))
        }
        // The threads that map a large body are created meanwhile, beside loading the schema.
        if jobs(profile) > 1, streaming.isStreaming || size.map({ $0 >= Mapper.smallestSplitBody }) ?? true {
            IdleThreads.shared.prepare(jobs(profile))
        }
        if streaming.isStreaming {
            if verbose { Terminal.error("restmap: streaming the body (\(streaming.stream ? "--stream" : "--input ndjson")) on \(jobs(profile)) thread(s)\n") }
            return try mapStream(with: try plugins.mapper(for: schema), descriptor: descriptor, profile: profile)
        }
        let threshold = try StreamingOptions.threshold()
        // Streaming is considered only for a body above the threshold, whose output can stream.
        let mayStream = !streaming.noStream && canStreamOutput && (size.map { $0 > threshold } ?? true)
        // Mapped whole, a body has at most 4 GiB; streamed, no limit as a whole unless --max-body gives one.
        let limit = maxBody ?? CommandInput.defaultMaximumBytes
        if let size, size > limit, !mayStream {
            try refuse(CommandInput.InputTooLarge(what: "body", source: source, maximumBytes: limit, fileSize: size, bytesRead: 0))
        }
        // A regular file that `map` may split is read in parts by the mapping threads, after the
        // schema loads, and never held whole. Anything else is read while the schema loads and
        // the plugins link; when it may stream, only its first part (a file's size is known
        // without reading it).
        let readsInParts = size.map { $0 >= Mapper.smallestSplitBody } ?? false
        let bodyRead = size != nil && (mayStream || readsInParts) ? nil
            : CommandInput.readInBackground(descriptor, limit: mayStream ? min(threshold, limit) : limit, profile: profile)
        let mapper = try plugins.mapper(for: schema)
        var outcome = bodyRead?.value()
        // A body that may stream streams unless the schema refuses: a regular file unread, or
        // a pipe that gave more than the threshold (the bytes read so far begin the stream).
        var unread: CommandInput.Pieces?
        if mayStream {
            switch outcome {
            case nil: unread = CommandInput.Pieces()
            case .tooLarge(_, let read)?: unread = read
            default: break
            }
        }
        if let read = unread {
            if read.count > limit {
                try refuse(CommandInput.InputTooLarge(what: "body", source: source, maximumBytes: limit, fileSize: nil,
                                                      bytesRead: read.count))
            }
            let prefix = read.joined()
            if let refusal = mapper.streamingRefusal(for: try response(body: [])) {
                if verbose { Terminal.error("restmap: mapping the whole body, which cannot stream: \(refusal)\n") }
                outcome = size != nil ? nil : CommandInput.readToEnd(descriptor, after: prefix, maximumBytes: limit)
            } else {
                if verbose {
                    Terminal.error("restmap: streaming the body (more than \(threshold) bytes) on \(jobs(profile)) thread(s)\n")
                }
                return try mapStream(with: mapper, descriptor: descriptor, prefix: prefix, profile: profile)
            }
        }
        let options = MappingOptions(strict: strict, jobs: jobs(profile), profile: profile)
        // From where the descriptor is: standard input may be a file read partly already.
        if outcome == nil, let file = FileDescriptorSource(descriptor: descriptor).positional,
           let result = try mapOrExit(try response(body: []), with: mapper, { (response) throws(MappingFailure) in
               try mapper.map(response, bodyIn: file, options: options)
           }) {
            if verbose { Terminal.error("restmap: mapped the body (\(file.count()) bytes) in parts read by \(jobs(profile)) thread(s)\n") }
            return try finish(result, profile: profile)
        }
        let bytes: [UInt8]
        do {
            bytes = try (outcome ?? CommandInput.readToEnd(descriptor, maximumBytes: limit))
                .bytes(what: "body", source: source, maximumBytes: limit)
        } catch let tooLarge as CommandInput.InputTooLarge {
            try refuse(tooLarge)
        }
        if verbose { Terminal.error("restmap: mapping the whole body (\(bytes.count) bytes) on \(jobs(profile)) thread(s)\n") }
        let result = try mapOrExit(try response(body: bytes), with: mapper) { (response) throws(MappingFailure) in try mapper.map(response, options: options) }
        try finish(result, profile: profile)
    }

    /// Runs `map` on `response`; a failure is reported (a malformed body that could stream is
    /// mapped as streaming maps it, `mapMalformed`, unless its elements cannot even be reached)
    /// and ends the command with status 1.
    private func mapOrExit<Mapped>(_ response: Response, with mapper: Mapper,
                                   _ map: (Response) throws(MappingFailure) -> Mapped) throws -> Mapped {
        do { return try map(response) } catch {
            if case .malformedBody = error, !strict, mapper.streamingRefusal(for: response) == nil {
                try mapMalformed(response, with: mapper)
            }
            Terminal.error("restmap: \(Self.explain(error, schema: mapper.schema))\n")
            throw ExitCode.failure
        }
    }

    /// Writes the records of a whole body and reports the ones that failed (status 1 then).
    /// The threads to map on: `--jobs` lowered to the cores, or as given when profiling, so that
    /// what the calling thread does for many threads can be measured on a machine with few cores.
    func jobs(_ profile: StageProfile?) -> Int {
        profile == nil ? streaming.jobs : streaming.threads.requestedJobs
    }

    private func finish(_ result: MappingResult, profile: StageProfile?) throws {
        output.write(result.records, jobs: jobs(profile), profile: profile)
        for error in result.errors {
            Terminal.error("restmap: record failed: \(error)\n")
        }
        // The process ends next: freeing the records one by one would only cost time (measured:
        // about 4% of mapping a 20 MB body); the operating system reclaims them at once.
        ProcessLifetime.keepUntilExit(result)
        if !result.errors.isEmpty { throw ExitCode.failure }
    }

    /// Maps a malformed body that could stream as streaming maps it, so both print the same: the
    /// elements before a break in the array's framing (a missing ',', text after the document)
    /// and every well-formed element around a malformed one print; each bad element and the
    /// break are reported with their position; exit status 1. Returns without printing when
    /// the break comes before any element (the body is no array, or its start is broken): the
    /// whole body's error says where, by line and column.
    private func mapMalformed(_ response: Response, with mapper: Mapper) throws {
        var records: [Record] = []
        var errors: [StreamedError] = []
        var failure: StreamingFailure?
        var delivered = false
        do {
            try mapper.mapStream(response, from: InMemorySource(response.body), options: StreamOptions(input: .array)) { batch in
                delivered = true
                records += batch.records
                errors += batch.errors
            }
        } catch {
            failure = error
        }
        if !delivered, failure != nil { return }
        output.write(records, jobs: streaming.jobs)
        for error in errors { Terminal.error("restmap: record failed: \(error)\n") }
        if let failure { Terminal.error("restmap: \(failure)\n") }
        throw ExitCode.failure
    }

    /// Whether the output options allow streaming: CSV needs every record for its header,
    /// `--pretty` and `--strict` the whole result.
    var canStreamOutput: Bool { output.format != .csv && !output.pretty && !strict }

    /// Reports a body over `--max-body`; exit status 1.
    private func refuse(_ tooLarge: CommandInput.InputTooLarge) throws -> Never {
        Terminal.error("restmap: \(tooLarge)\n")
        throw ExitCode.failure
    }

    /// A mapping failure's message; a response that no descriptor matches lists the descriptors
    /// and points at `--path`, `--method` and `--status`.
    static func explain(_ failure: MappingFailure, schema: Schema) -> String {
        guard case .noResponseDescriptor = failure else { return failure.description }
        let descriptors = schema.responses.prefix(20).map { descriptor in
            "\(descriptor.method ?? "any method") \(descriptor.path?.text ?? "(any path)") → \(descriptor.entity.value)"
        }
        let more = schema.responses.count > 20 ? ", … (\(schema.responses.count - 20) more)" : ""
        let listed = descriptors.isEmpty ? "the schema has no response descriptors" : "the schema's response descriptors: "
            + descriptors.joined(separator: ", ") + more
        return "\(failure); \(listed). Give the request path with --path (and --method, --status where they differ)"
    }

    /// The response the options describe, with `body`.
    func response(body: [UInt8]) throws -> Response {
        if let url, !url.contains("://") {
            throw ValidationError("--url takes a full URL such as https://api.example.com/users, found '\(url)'")
        }
        return Response(method: method, path: path ?? url ?? "/", status: status, headers: try headers(), body: body,
                        parameters: try Pairs.parse(param, separator: "=", option: "--param"),
                        requestHeaders: try Pairs.parse(requestHeader, separator: ":", option: "--request-header"),
                        userMetadata: .object(try Pairs.parse(metadata, separator: "=", option: "--metadata")
                            .sorted { $0.key < $1.key }.map { Value.Member(key: $0.key, value: .string($0.value)) }),
                        requestURL: url)
    }

    private func headers() throws -> [String: String] {
        var headers = try Pairs.parse(header, separator: ":", option: "--header")
        if let implied = BodyMediaType.implied(byExtensionOf: body),
           !headers.keys.contains(where: { $0.equalsIgnoringCase("Content-Type") }) {
            headers["Content-Type"] = implied
        }
        return headers
    }
}

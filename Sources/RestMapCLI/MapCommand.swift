import ArgumentParser
import Foundation
import RestMap
import RestMapAuthoring

/// `restmap map`: maps a response body with a schema and prints the root records.
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Map a response body with a schema and print the records.",
        discussion: """
            Reads the body from BODY-FILE, or from standard input when it is '-' or omitted. Records print \
            as JSON objects with "$entity" first; errors of individual records go to standard error and make \
            the exit status 1 (the other records still print). A .csv body is read as text/csv.

            Example:
              restmap map --schema api.yaml --path /task_list task_list.json
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

    @Argument(help: ArgumentHelp("The response body; '-' or nothing reads standard input.", valueName: "BODY-FILE"))
    var body: String?

    func run() throws {
        // A whole body is read while the schema loads and the plugins link.
        let bodyRead = streaming.isStreaming ? nil : CommandInput.readInBackground(body)
        let mapper = try plugins.mapper(for: schema)
        guard let bodyRead else { return try mapStream(with: mapper) }
        let response = try response(body: try bodyRead.value())
        let result: MappingResult
        do { result = try mapper.map(response, options: MappingOptions(strict: strict, jobs: streaming.jobs)) } catch {
            Terminal.error("restmap: \(error)\n")
            throw ExitCode.failure
        }
        output.write(result.records, jobs: streaming.jobs)
        for error in result.errors {
            Terminal.error("restmap: record failed: \(error)\n")
        }
        // The process ends next: freeing the records one by one would only cost time (measured:
        // about 4% of mapping a 20 MB body); the operating system reclaims them at once.
        ProcessLifetime.keepUntilExit(result)
        if !result.errors.isEmpty { throw ExitCode.failure }
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
           !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            headers["Content-Type"] = implied
        }
        return headers
    }
}

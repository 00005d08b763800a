import ArgumentParser
import FoundationEssentials
import RestMapAuthoring
import RestMapCLICore

/// `restmap init SAMPLE…`: drafts a schema from sample response bodies.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Draft a schema from sample responses.",
        discussion: """
            Prints a schema that maps every sample: entities for objects and lists of objects (nested \
            ones related, repeated shapes unified, objects keyed by ids as keyedBy collections), \
            attribute types inferred across the samples, an identifiedBy proposal, the response \
            descriptor (the records' key path inside an envelope) and a pagination guess from the \
            envelope's paging fields or a Link header. Comments mark what was guessed. The draft is \
            checked against its own samples; what still does not map is reported on standard error \
            (exit 1). A .csv sample is read with the csv plugin.

            The draft prints on standard output: redirect it to a file such as api.yaml to keep it.

            Examples (run from the repository's root):
              restmap init --path /users/:login/starred Samples/github/starred.json
              restmap init --path /users/:login/starred \\
                --header 'Link: <https://api.github.com/?page=2>; rel="next"' \\
                Samples/github/starred.json
            """
    )

    @Option(help: "The request path (pattern) of the samples, relative to the base URL.")
    var path = "/"

    @Option(help: "The request method of the samples.")
    var method = "GET"

    @Option(help: "The API's name.")
    var name: String?

    @Option(name: .customLong("base-url"), help: "The API's base URL.")
    var baseURL: String?

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp(
        "A response header of the samples (repeatable): a Link header with rel=\"next\" drafts link pagination.",
        valueName: "name:value"))
    var header: [String] = []

    @Option(name: .customLong("json-schema"), help: ArgumentHelp(
        "Where editors find the JSON Schema (restmap schema --json-schema), relative to the draft or a URL: written as a yaml-language-server comment.",
        valueName: "path-or-url"))
    var jsonSchema: String?

    @OptionGroup var plugins: PluginOptions

    @Argument(help: ArgumentHelp("Sample response bodies (JSON, or .csv).", valueName: "sample"))
    var samples: [String] = []

    func validate() throws {
        if samples.isEmpty { throw ValidationError("no sample files given") }
        if !path.hasPrefix("/") { throw ValidationError("--path must start with '/', found '\(path)'") }
        _ = try Pairs.parse(header, separator: ":", option: "--header")
        if let jsonSchema, jsonSchema.isEmpty || jsonSchema.contains(where: \.isNewline) {
            throw ValidationError("--json-schema takes a path or URL on one line, found '\(jsonSchema)'")
        }
    }

    func run() throws {
        let headers = try Pairs.parse(header, separator: ":", option: "--header")
        let inference = SchemaInference(options: .init(name: name, baseURL: baseURL, path: path, method: method,
                                                       headers: headers, jsonSchema: jsonSchema),
                                        pluginPaths: plugins.pluginPaths)
        for sample in samples {
            guard let data = FileManager.default.contents(atPath: sample) else {
                Terminal.error("restmap: cannot read the sample '\(sample)'\n")
                throw ExitCode.failure
            }
            do { try inference.add(sample: Array(data), file: sample) } catch {
                Terminal.error("restmap: \(error)\n")
                throw ExitCode.failure
            }
        }
        let draft = inference.draft()
        Terminal.out(draft.yaml)
        for diagnostic in draft.diagnostics { Terminal.error("\(diagnostic)\n") }
        if !draft.diagnostics.isEmpty { throw ExitCode.failure }
    }
}

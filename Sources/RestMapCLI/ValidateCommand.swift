import ArgumentParser
import FoundationEssentials
import Glibc
import RestMap
import RestMapAuthoring
import RestMapCLICore
import RestMapPlugins
import RestMapSchema

/// `restmap validate FILE...`: checks schema files and prints every diagnostic.
///
/// Exit status: 0 when no file has an error (warnings allowed), 1 when any has, 2 for a usage
/// problem (no files, an unknown option, a pattern that matches nothing).
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check schema files and print their diagnostics.",
        discussion: """
            Prints each diagnostic as FILE:LINE:COLUMN: error|warning: MESSAGE, sorted by position, \
            then a summary line on standard error. FILE may be a pattern with * ? [ ] (quote it to \
            let restmap expand it). Exits 1 when any file has an error, 2 for a usage problem.

            Examples (run from the repository's root):
              restmap validate 'Schemas/*.yaml'
              restmap validate Schemas/tasks.yaml --path /task_list \\
                --sample Samples/tasks/task_list.json
            """
    )

    /// How diagnostics print.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "Output format: text (FILE:LINE:COLUMN: …) or json (an array of objects).")
    var format: Format = .text

    @Option(help: ArgumentHelp("A sample response body to map with each schema: a dry run reporting unmapped keys, failed records and empty selections.", valueName: "body"))
    var sample: String?

    @Option(help: "The request path of --sample, relative to the schema's baseURL.")
    var path = "/"

    @Option(help: "The request method of --sample.")
    var method = "GET"

    @Option(help: "The response status of --sample.")
    var status = 200

    @OptionGroup var plugins: PluginOptions

    // Unknown options land here too (rather than in ArgumentParser's usage error, which exits 64),
    // so that every usage problem of this command exits 2; `validate()` reports them.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Schema files or patterns.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        if let option = files.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            try Self.usageError("unknown option '\(option)'")
        }
        if files.isEmpty {
            try Self.usageError("no schema files given")
        }
    }

    func run() throws {
        var paths: [String] = []
        for argument in files {
            let matches = try Self.expand(argument)
            if matches.isEmpty { try Self.usageError("no file matches '\(argument)'") }
            paths += matches
        }
        var diagnostics: [Diagnostic] = []
        for path in paths {
            let loaded = Schema.load(contentsOf: path, options: plugins.loadOptions)
            diagnostics += loaded.diagnostics
            if let sample, let schema = loaded.schema {
                diagnostics += try dryRun(schema, plugins: loaded.plugins, sample: sample)
            }
        }
        switch format {
        case .text:
            for diagnostic in diagnostics { print(diagnostic) }
        case .json:
            print(try Self.json(diagnostics))
        }
        let errors = diagnostics.count { $0.severity == .error }
        let warnings = diagnostics.count - errors
        Terminal.error(
            "\(Self.count(errors, "error")), \(Self.count(warnings, "warning")) in \(Self.count(paths.count, "file"))\n")
        if errors > 0 { throw ExitCode.failure }
    }

    /// Maps the sample body with a valid schema and turns the findings into diagnostics: failed
    /// records and unmapped keys point into the sample, empty selections at the schema.
    func dryRun(_ schema: Schema, plugins registry: PluginRegistry, sample: String) throws -> [Diagnostic] {
        guard let data = FileManager.default.contents(atPath: sample) else {
            throw ValidationError("cannot read the sample '\(sample)'")
        }
        let body = [UInt8](data)
        let mapper = try Mapper(schema: schema, plugins: registry)
        let headers = BodyMediaType.implied(byExtensionOf: sample).map { ["Content-Type": $0] } ?? [:]
        let report = mapper.dryRun(Response(method: method, path: path, status: status, headers: headers, body: body))
        return report.diagnostics(sample: sample, body: body)
    }

    // MARK: Helpers

    /// The files an argument names: itself when it has no pattern characters, else the sorted
    /// matches of `glob(3)` (a quoted pattern reaches the program unexpanded).
    static func expand(_ argument: String) throws -> [String] {
        guard argument.contains(where: { "*?[".contains($0) }) else { return [argument] }
        var matches = glob_t()
        defer { globfree(&matches) }
        switch glob(argument, 0, nil, &matches) {
        case 0:
            return (0..<Int(matches.gl_pathc)).compactMap { index in matches.gl_pathv[index].map { String(cString: $0) } }
        case GLOB_NOMATCH:
            return []
        default:
            throw ValidationError("cannot expand '\(argument)'")
        }
    }

    /// Prints `message` with the usage, as ArgumentParser does, and exits 2.
    static func usageError(_ message: String) throws -> Never {
        Terminal.error("Error: \(message)\nUsage: \(RestMapCommand.usageString(for: Self.self))\n"
            + "  See 'restmap validate --help' for more information.\n")
        throw CommandMain.usageExitCode
    }

    /// The diagnostics as a JSON array of `{"file", "line", "column", "severity", "message"}` objects.
    static func json(_ diagnostics: [Diagnostic]) throws -> String {
        struct Entry: Encodable {
            var file: String
            var line: Int
            var column: Int
            var severity: String
            var message: String
        }
        let entries = diagnostics.map {
            Entry(file: $0.location.file, line: $0.location.line, column: $0.location.column,
                  severity: $0.severity.rawValue, message: $0.message)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self)
    }

    /// "1 error", "2 warnings".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

import ArgumentParser
import Foundation
import Glibc
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
            """
    )

    /// How diagnostics print.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(help: "Output format: text (FILE:LINE:COLUMN: …) or json (an array of objects).")
    var format: Format = .text

    // Unknown options land here too (rather than in ArgumentParser's usage error, which exits 64),
    // so that every usage problem of this command exits 2; `validate()` reports them.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("Schema files or patterns.", valueName: "file"))
    var files: [String] = []

    /// Exit status of a usage problem.
    static let usageExitCode = ExitCode(2)

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
            diagnostics += Schema.load(contentsOf: path, options: validationOptions(forSchemaAt: path)).diagnostics
        }
        switch format {
        case .text:
            for diagnostic in diagnostics { print(diagnostic) }
        case .json:
            print(try Self.json(diagnostics))
        }
        let errors = diagnostics.count { $0.severity == .error }
        let warnings = diagnostics.count - errors
        Self.standardError(
            "\(Self.count(errors, "error")), \(Self.count(warnings, "warning")) in \(Self.count(paths.count, "file"))\n")
        if errors > 0 { throw ExitCode.failure }
    }

    /// The validation options for one schema file.
    ///
    /// Plugin seam: transformer names and arguments are checked only when the options carry a
    /// `TransformerCatalog` of the plugins the schema loads; wiring the plugin registry in here
    /// makes `validate` plugin-aware. Until then a transformer is checked against the schema's
    /// `plugins:` list alone.
    func validationOptions(forSchemaAt path: String) -> SchemaValidationOptions {
        SchemaValidationOptions()
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
        standardError("Error: \(message)\nUsage: \(RestMapCommand.usageString(for: Self.self))\n"
            + "  See 'restmap validate --help' for more information.\n")
        throw usageExitCode
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

    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

import ArgumentParser
import RestMapAuthoring
import RestMapCLICore

/// `restmap test FILE…`: runs schema test files (Docs/Authoring.md).
///
/// Exit status: 0 when every case passes, 1 when any fails (or a file is broken), 2 for a usage problem.
struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run schema tests: responses mapped with a schema and what they must produce.",
        discussion: """
            Prints PASS or FAIL per case and each failure as FILE:LINE:COLUMN: error: MESSAGE: expected X, \
            found Y at the expectation that failed, then a summary on standard error. FILE may be a pattern \
            (quote it). Exits 1 when any case fails, 2 for a usage problem.

            The JUnit report prints on standard output: redirect it to a file to keep it.

            Examples (run from the repository's root):
              restmap test 'Schemas/tests/*.yaml'
              restmap test --format junit Schemas/tests/tasks.yaml
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, junit
    }

    @Option(help: "Output format: text or junit (JUnit XML for CI systems).")
    var format: Format = .text

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Run only cases with this tag; repeatable.", valueName: "tag"))
    var tag: [String] = []

    @OptionGroup var plugins: PluginOptions

    @Argument(help: ArgumentHelp("Test files or patterns.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        if files.isEmpty { throw ValidationError("no test files given") }
    }

    func run() throws {
        var paths: [String] = []
        for argument in files {
            let matches = try ValidateCommand.expand(argument)
            if matches.isEmpty { throw ValidationError("no file matches '\(argument)'") }
            paths += matches
        }
        let runner = SchemaTestRunner(pluginPaths: plugins.pluginPaths, tags: Set(tag))
        let results = paths.map { runner.run(file: $0) }
        switch format {
        case .text: Terminal.out(SchemaTestReport.text(results))
        case .junit: Terminal.out(SchemaTestReport.junit(results))
        }
        Terminal.error(SchemaTestReport.summary(results) + "\n")
        if !results.allSatisfy(\.passed) { throw ExitCode.failure }
    }
}

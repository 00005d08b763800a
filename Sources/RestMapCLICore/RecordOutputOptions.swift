import ArgumentParser
import RestMap

/// How records print (`--format`, `--pretty`): one set of options for every command that prints records.
package struct RecordOutputOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: "Output format: json, ndjson or csv.")
    package var format: RecordFormat = .json

    @Flag(name: .long, help: "Indent JSON output.")
    package var pretty = false

    /// Writes the records to standard output in the chosen format, rendered on up to `jobs` threads;
    /// `profile` learns the CPU time of rendering and writing.
    package func write(_ records: [Record], jobs: Int = 1, profile: StageProfile? = nil) {
        RecordWriter.write(records, format: format, pretty: pretty, jobs: jobs, profile: profile) { bytes in
            profile.measure(.write) { Terminal.write(bytes) }
        }
    }
}

extension RecordFormat: ExpressibleByArgument {}

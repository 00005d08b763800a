import ArgumentParser
import RestMap

/// How records print (`--format`, `--pretty`): one set of options for every command that prints records.
struct RecordOutputOptions: ParsableArguments {
    @Option(name: .long, help: "Output format: json, ndjson or csv.")
    var format: RecordFormat = .json

    @Flag(name: .long, help: "Indent JSON output.")
    var pretty = false

    /// Writes the records to standard output in the chosen format, rendered on up to `jobs` threads;
    /// `profile` learns the CPU time of rendering and writing.
    func write(_ records: [Record], jobs: Int = 1, profile: StageProfile? = nil) {
        RecordWriter.write(records, format: format, pretty: pretty, jobs: jobs, profile: profile) { bytes in
            profile.measure(.write) { Terminal.write(bytes) }
        }
    }
}

extension RecordFormat: ExpressibleByArgument {}

import ArgumentParser
import FoundationEssentials

/// `--jobs`: how many threads map a large body, for the commands that map one.
///
/// More threads than cores do not map faster: a value above `helpfulMaximum` is lowered to it
/// (`restmap map --profile` keeps it, to measure), and a value above `ceiling` is a usage error
/// (it is a typing mistake, not a wish).
package struct JobsOption: ParsableArguments {
    package init() {}

    /// The largest `--jobs` accepted.
    package static let ceiling = 1024
    /// The most threads that still help: one per core. The threads map bytes already in memory and
    /// never wait for input, so more threads than cores only take turns (measured: `--jobs 8` on two
    /// cores was 5% slower than `--jobs 2`).
    package static var helpfulMaximum: Int { ProcessEnvironment.activeProcessorCount }

    @Option(name: .customLong("jobs"), help: ArgumentHelp(
        "Threads that map a large array or NDJSON, 1 to \(ceiling) (default, and most used: the number of cores); the records and their order are what one thread gives.",
        valueName: "jobs"))
    package var requestedJobs: Int = ProcessEnvironment.activeProcessorCount

    /// The threads to use: `--jobs`, lowered to `helpfulMaximum`.
    package var jobs: Int { min(requestedJobs, Self.helpfulMaximum) }

    package func validate() throws {
        guard (1...Self.ceiling).contains(requestedJobs) else {
            throw ValidationError("--jobs takes a positive number of threads up to \(Self.ceiling), found \(requestedJobs)")
        }
    }
}

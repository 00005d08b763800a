import ArgumentParser
import Foundation

/// `--jobs`: how many threads map a large body, for the commands that map one.
struct JobsOption: ParsableArguments {
    @Option(name: .long, help: "Threads that map a large array or NDJSON (default: the number of cores); the records and their order are what one thread gives.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs takes a positive number, found \(jobs)") }
    }
}

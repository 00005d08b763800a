import Foundation
import RestMapTestSupport
import Testing

/// Runs the built `restmap` binary, found next to the running test executable.
enum CLI {
    static let repository = TestPaths.repository

    /// What one run printed and how it exited.
    typealias Run = ProcessOutput

    /// Runs `restmap` with `arguments` in `directory`, feeding `input` to its standard input.
    static func run(_ arguments: [String], in directory: URL = repository, input: Data? = nil) throws -> Run {
        try ChildProcess.run(try TestPaths.built("restmap"), arguments, in: directory, input: input)
    }
}

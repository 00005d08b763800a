import Foundation
import Testing

/// Runs the built `restmap` binary, found next to the running test executable.
enum CLI {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What one run printed and how it exited.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `restmap` with `arguments` in `directory`, feeding `input` to its standard input.
    static func run(_ arguments: [String], in directory: URL = repository, input: Data? = nil) throws -> Run {
        let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let binary = folder.appendingPathComponent("restmap")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "\(binary.path) is missing: run `swift build` first")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe(), errors = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        // Read both streams concurrently so a large output cannot block the child.
        nonisolated(unsafe) var errorData = Data()
        let reader = Thread { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return Run(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                   errors: String(decoding: errorData, as: UTF8.self))
    }
}

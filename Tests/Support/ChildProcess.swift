import Foundation

/// Paths the test targets share.
public enum TestPaths {
    /// The repository root.
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The build folder of the running test executable, where `swift build` put `restmap`, the
    /// sample server and the plugin libraries.
    public static let buildFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// A program of the build folder, or an error saying to build it first.
    public static func built(_ name: String) throws -> URL {
        let binary = buildFolder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestSupportError("\(binary.path) is missing: run `swift build` first")
        }
        return binary
    }
}

/// A failure of the test support itself (a program missing, a server that did not start).
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What one run of a program printed and how it exited.
public struct ProcessOutput: Sendable {
    public var status: Int32
    public var output: String
    public var errors: String
}

/// Runs programs to their end.
public enum ChildProcess {
    /// Runs `executable` with `arguments` in `directory`, with environment additions, feeding
    /// `input` to its standard input; both output streams are read at once, so a large output
    /// cannot block the child.
    public static func run(_ executable: URL, _ arguments: [String], in directory: URL = TestPaths.repository,
                           input: Data? = nil, environment: [String: String] = [:]) throws -> ProcessOutput {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe(), errors = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        // Written on a thread of its own: a child that prints while it reads would otherwise
        // wait for its output to be read while this waits for it to read its input.
        let writer = Thread {
            if let input { standardInput.fileHandleForWriting.write(input) }
            try? standardInput.fileHandleForWriting.close()
        }
        writer.start()
        let errorData = DataBox()
        let errorsRead = DispatchSemaphore(value: 0)
        let reader = Thread {
            errorData.set(errors.fileHandleForReading.readDataToEndOfFile())
            errorsRead.signal()
        }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorsRead.wait()   // standard error is at its end once the process and its children closed it
        return ProcessOutput(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                             errors: String(decoding: errorData.get(), as: UTF8.self))
    }

    /// Waits for `process` to exit: `true` when it did within `timeout` seconds.
    public static func waitForExit(of process: Process, timeout: TimeInterval) -> Bool {
        let exited = DispatchSemaphore(value: 0)
        let waiter = Thread {
            process.waitUntilExit()
            exited.signal()
        }
        waiter.start()
        return exited.wait(timeout: .now() + timeout) == .success
    }

    /// The first line a pipe delivers, or `nil` when none arrives within `timeout` seconds.
    public static func firstLine(of pipe: Pipe, timeout: TimeInterval) -> String? {
        let box = DataBox()
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            var data = Data()
            while !data.contains(UInt8(ascii: "\n")) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data += chunk
            }
            box.set(data)
            done.signal()
        }
        reader.start()
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return String(decoding: box.get(), as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}

/// Runs blocking work (waiting for a process) on a Dispatch thread, so the tests running at the
/// same time keep the cooperative thread pool, which async work resumes on.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// `offPool` for work that cannot fail.
@discardableResult
public func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}

final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}

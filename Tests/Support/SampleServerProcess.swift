import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `restmap-sample-server` process on 127.0.0.1 (`--port 0`), started by one test and stopped
/// by it. Its standard error goes to a file, so a chatty server never blocks on a full pipe.
public final class SampleServer: @unchecked Sendable {
    public let process: Process
    public let port: Int
    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let errorLog: URL

    /// The repository root (the server's working directory) and the build folder.
    public static var repository: URL { TestPaths.repository }
    public static var binaries: URL { TestPaths.buildFolder }

    /// Starts the server with `--port 0` and `arguments`, and waits (at most 30 s) for its one
    /// `listening on` line.
    public init(_ arguments: [String] = []) throws {
        let run = try Self.launch(["--port", "0"] + arguments)
        process = run.process
        errorLog = run.errorLog
        guard let line = ChildProcess.firstLine(of: run.output, timeout: 30),
              line.hasPrefix("listening on http://127.0.0.1:"),
              let port = Int(line.dropFirst("listening on http://127.0.0.1:".count)) else {
            process.terminate()
            process.waitUntilExit()
            throw TestSupportError("the sample server did not start: \((try? String(contentsOf: run.errorLog, encoding: .utf8)) ?? "")")
        }
        self.port = port
    }

    /// Starts the binary with exactly `arguments`; standard error goes to a file.
    public static func launch(_ arguments: [String]) throws -> (process: Process, output: Pipe, errorLog: URL) {
        let binary = try TestPaths.built("restmap-sample-server")
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("sample-server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        try process.run()
        return (process, output, errorLog)
    }

    /// Stops the server and returns what it wrote on standard error.
    @discardableResult
    public func stop() -> String {
        if process.isRunning { process.terminate() }
        if !ChildProcess.waitForExit(of: process, timeout: 10) {
            // Never hang a test run on a server that does not stop: kill it, and say so.
            FileHandle.standardError.write(Data("sample server \(process.processIdentifier) did not exit within 10 s of SIGTERM; killed\n".utf8))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        defer { try? FileManager.default.removeItem(at: errorLog) }
        return (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
    }

    /// Starts a server (see `init`) off the cooperative thread pool.
    public static func start(_ arguments: [String] = []) async throws -> SampleServer {
        try await offPool { try SampleServer(arguments) }
    }

    /// Runs `body` with a started server, always stopping it.
    public static func with<T>(_ arguments: [String] = [], _ body: (SampleServer) async throws -> T) async throws -> T {
        let server = try await start(arguments)
        do {
            let result = try await body(server)
            await offPool { server.stop() }
            return result
        } catch {
            await offPool { server.stop() }
            throw error
        }
    }
}

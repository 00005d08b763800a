import Foundation
import RestMap
import RestMapClient
import RestMapSchema
import Testing

/// A `restmap-sample-server` process on 127.0.0.1, started for one test and stopped after it.
final class SampleServer: @unchecked Sendable {
    let process: Process
    /// `http://127.0.0.1:PORT`
    let baseURL: String
    private let errors: Pipe

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binaries = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// Starts a server with extra options and waits (at most 30 s) for its `listening on` line.
    init(_ arguments: [String] = []) throws {
        let binary = Self.binaries.appendingPathComponent("restmap-sample-server")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) is missing: run `swift build` first")
        process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0"] + arguments
        process.currentDirectoryURL = Self.repository
        let output = Pipe()
        errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var line = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening on http://127.0.0.1:") else {
            process.terminate()
            throw ServerError(message: "the sample server did not start: '\(text)'")
        }
        baseURL = String(text.dropFirst("listening on ".count))
    }

    /// The port the server listens on.
    var port: Int { Int(baseURL.split(separator: ":").last!)! }

    /// Stops the server and returns what it wrote on standard error.
    @discardableResult
    func stop() -> String {
        process.terminate()
        process.waitUntilExit()
        return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Starts a server off the cooperative thread pool (the start blocks while the process comes up).
    static func start(_ arguments: [String] = []) async throws -> SampleServer {
        try await offPool { try SampleServer(arguments) }
    }

    /// Runs `body` with a started server and stops it afterwards.
    static func with<T>(_ arguments: [String] = [], _ body: (SampleServer) async throws -> T) async throws -> T {
        let server = try await start(arguments)
        do {
            let result = try await body(server)
            server.stop()
            return result
        } catch {
            server.stop()
            throw error
        }
    }

    struct ServerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// Runs blocking work (waiting for a process) on a Dispatch thread, so the tests running at the
/// same time keep the cooperative thread pool, which the client's requests resume on.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// Schemas for the tests.
enum TestSchemas {
    /// A mapper from YAML text.
    static func mapper(_ yaml: String) throws -> Mapper {
        let loaded = Schema.load(bytes: Array(yaml.utf8), file: "test.yaml")
        let schema = try #require(loaded.schema, "\(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        return try Mapper(schema: schema)
    }

    /// A mapper of a schema file of the repository (`Schemas/github.yaml`), with its plugins.
    static func repositoryMapper(_ path: String) throws -> Mapper {
        try Mapper(contentsOf: SampleServer.repository.appendingPathComponent(path).path,
                   pluginPaths: [SampleServer.binaries.path])
    }

    /// `Schemas/articles.yaml` (the sample server's articles in every pagination kind), with
    /// `extra` YAML appended at the top level.
    static func articles(_ extra: String = "") -> String {
        let file = SampleServer.repository.appendingPathComponent("Schemas/articles.yaml")
        return ((try? String(contentsOf: file, encoding: .utf8)) ?? "") + "\n" + extra + "\n"
    }

    /// A configuration for a test server: its base URL, short timeouts and quick retries.
    static func configuration(_ server: SampleServer, _ change: (inout ClientConfiguration) -> Void = { _ in }) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        configuration.retry.initialDelay = .milliseconds(20)
        configuration.retry.maxTotal = .seconds(20)
        configuration.connectTimeout = .seconds(5)
        configuration.readTimeout = .seconds(10)
        configuration.requestTimeout = .seconds(120)  // generous: the whole suite shares 2 cores
        configuration.environment = ["SAMPLE_TOKEN": "sample-token", "SAMPLE_KEY": "sample-api-key",
                                     "SAMPLE_USER": "sample-user", "SAMPLE_PASSWORD": "sample-password"]
        change(&configuration)
        return configuration
    }
}

extension PageSequence {
    /// Every page, in order.
    func collect() async throws -> [Page] {
        var pages: [Page] = []
        for try await page in self { pages.append(page) }
        return pages
    }
}

extension Record {
    var id: Int64? { if case .integer(let value)? = self["id"].value { value } else { nil } }
}

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

    /// Runs `body` with a started server and stops it afterwards.
    static func with<T>(_ arguments: [String] = [], _ body: (SampleServer) async throws -> T) async throws -> T {
        let server = try SampleServer(arguments)
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

    /// The articles of the sample server in every pagination kind, with `extra` YAML appended at the top level.
    static func articles(_ extra: String = "") -> String {
        """
        restmap: 1
        baseURL: http://127.0.0.1:1
        entities:
          Article:
            attributes:
              id: { from: id, type: integer }
              title: title
              authorName: author.name
        responses:
          - { path: /page/articles, keyPath: articles, entity: Article }
          - { path: /offset/articles, keyPath: articles, entity: Article }
          - { path: /cursor/articles, keyPath: articles, entity: Article }
          - { path: /header-cursor/articles, entity: Article }
          - { path: /link/articles, entity: Article }
          - { path: /articles/:id, entity: Article }
          - { path: "/auth/:kind/articles", keyPath: articles, entity: Article }
        errors:
          - { message: error }
        routes:
          article: GET /articles/:id
          pages:
            path: /page/articles
            pagination: { kind: page, currentPage: pagination.page, pageCount: pagination.total_pages }
          pagesByObjects:
            path: /page/articles
            pagination: { kind: page, pageSize: 10, objectCount: pagination.total_objects }
          pagesSized:
            path: /page/articles
            pagination: { kind: page, pageSize: 10 }
          pagesUnsized:
            path: /page/articles
            pagination: { kind: page }
          pagesByPath:
            path: /page/articles
            pagination: { kind: page, path: "/page/articles?page_number=:currentPage&per_page=:perPage", pageSize: 20, pageCount: pagination.total_pages }
          offsets:
            path: /offset/articles
            pagination: { kind: offset, pageSize: 10, objectCount: meta.total }
          offsetsUncounted:
            path: /offset/articles
            pagination: { kind: offset, pageSize: 10 }
          cursors:
            path: /cursor/articles
            pagination: { kind: cursor, cursor: next_cursor }
          headerCursors:
            path: /header-cursor/articles
            pagination: { kind: cursor, cursorHeader: X-Next-Cursor }
          links:
            path: /link/articles
            pagination: { kind: link }
          bearerArticles:
            path: /auth/bearer/articles
            pagination: { kind: page, pageCount: pagination.total_pages }
          headerKeyArticles: GET /auth/header/articles
          queryKeyArticles: GET /auth/query/articles
          basicArticles: GET /auth/basic/articles
        \(extra)
        """
    }

    /// A configuration for a test server: its base URL, short timeouts and quick retries.
    static func configuration(_ server: SampleServer, _ change: (inout ClientConfiguration) -> Void = { _ in }) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.baseURL = server.baseURL
        configuration.retry.initialDelay = .milliseconds(20)
        configuration.retry.maxTotal = .seconds(20)
        configuration.connectTimeout = .seconds(5)
        configuration.readTimeout = .seconds(10)
        configuration.requestTimeout = .seconds(30)
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

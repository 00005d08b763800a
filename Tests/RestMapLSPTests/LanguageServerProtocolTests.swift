import Foundation
import Testing

/// Drives the built `restmap lsp` through a whole session over real LSP framing
/// (Content-Length headers, JSON-RPC 2.0) and checks its answers.
@Suite("restmap lsp: the protocol")
struct LanguageServerProtocolTests {
    static let buildDirectory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// A client of one server process.
    final class Client {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        private var buffer = Data()
        private var nextID = 1
        /// Notifications received while waiting for responses.
        private(set) var notifications: [[String: Any]] = []
        /// Error responses received.
        private(set) var errors: [[String: Any]] = []

        init() throws {
            let binary = LanguageServerProtocolTests.buildDirectory.appendingPathComponent("restmap")
            try #require(FileManager.default.isExecutableFile(atPath: binary.path), "\(binary.path) is missing: run `swift build` first")
            process.executableURL = binary
            process.arguments = ["lsp"]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        func send(_ message: [String: Any]) throws {
            let body = try JSONSerialization.data(withJSONObject: message)
            input.fileHandleForWriting.write(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
        }

        func notify(_ method: String, _ params: [String: Any]) throws {
            try send(["jsonrpc": "2.0", "method": method, "params": params])
        }

        /// Sends a request and reads messages until its response (bounded: 200 messages).
        func request(_ method: String, _ params: [String: Any]) throws -> Any? {
            let id = nextID
            nextID += 1
            try send(["jsonrpc": "2.0", "id": id, "method": method, "params": params])
            for _ in 0..<200 {
                let message = try read()
                if message["id"] as? Int == id {
                    if let error = message["error"] as? [String: Any] { errors.append(error) }
                    return message["result"]
                }
                notifications.append(message)
            }
            throw ClientError.noResponse(method)
        }

        /// Reads until a notification of `method` arrives (bounded: 200 messages).
        func waitFor(_ method: String) throws -> [String: Any] {
            if let index = notifications.firstIndex(where: { $0["method"] as? String == method }) {
                return notifications.remove(at: index)
            }
            for _ in 0..<200 {
                let message = try read()
                if message["method"] as? String == method { return message }
                notifications.append(message)
            }
            throw ClientError.noResponse(method)
        }

        private func read() throws -> [String: Any] {
            while true {
                if let headerEnd = buffer.range(of: Data("\r\n\r\n".utf8)) {
                    let header = String(decoding: buffer[..<headerEnd.lowerBound], as: UTF8.self)
                    let lengths = header.split(separator: "\r\n").compactMap { line -> Int? in
                        let parts = line.split(separator: ":")
                        return parts.first?.lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
                    }
                    let length = try #require(lengths.first)
                    if buffer.count >= headerEnd.upperBound + length {
                        let body = buffer[headerEnd.upperBound..<headerEnd.upperBound + length]
                        buffer = Data(buffer[(headerEnd.upperBound + length)...])
                        let message = try JSONSerialization.jsonObject(with: body)
                        return try #require(message as? [String: Any])
                    }
                }
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { throw ClientError.closed }
                buffer += data
            }
        }

        /// `shutdown` (which must answer null), then `exit`; returns the exit status.
        func finish() throws -> Int32 {
            #expect(try request("shutdown", [:]) is NSNull)
            try notify("exit", [:])
            process.waitUntilExit()
            return process.terminationStatus
        }

        enum ClientError: Error { case noResponse(String), closed }
    }

    static let uri = "file:///work/api.yaml"

    static let schema = """
        restmap: 1
        plugins: [dates]
        entities:
          User:
            identifiedBy: id
            attributes:
              id: { from: id, type: integer }
              login: login
          Repository:
            attributes:
              id: { from: id, type: integer }
              pushedAt: { from: pushed_at, type: date, transform: dates.parse }
            relationships:
              owner: { from: owner, entity: User }
        responses:
          - { method: GET, path: /repos, entity: Repository }

        """

    func labels(_ result: Any?) -> [String] {
        ((result as? [String: Any])?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }

    func position(_ line: Int, _ character: Int) -> [String: Any] {
        ["textDocument": ["uri": Self.uri], "position": ["line": line, "character": character]]
    }

    @Test("A whole session: diagnostics, completion, hover, definition, shutdown and exit")
    func session() throws {
        let client = try Client()
        let initialized = try #require(try client.request("initialize", [
            "processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any],
            "initializationOptions": ["pluginPaths": [Self.buildDirectory.path]],
        ]) as? [String: Any])
        let capabilities = try #require(initialized["capabilities"] as? [String: Any])
        #expect(capabilities["hoverProvider"] as? Bool == true)
        #expect(capabilities["definitionProvider"] as? Bool == true)
        try client.notify("initialized", [:])

        // A clean file publishes no diagnostics.
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": Self.schema]])
        let clean = try client.waitFor("textDocument/publishDiagnostics")
        #expect(((clean["params"] as? [String: Any])?["diagnostics"] as? [Any])?.isEmpty == true)

        // A misspelled entity and an unknown transformer: positioned diagnostics, structural and plugin-aware.
        let broken = Self.schema
            .replacingOccurrences(of: "entity: User }", with: "entity: Usr }")
            .replacingOccurrences(of: "transform: dates.parse", with: "transform: dates.prase")
        try client.notify("textDocument/didChange", ["textDocument": ["uri": Self.uri, "version": 2], "contentChanges": [["text": broken]]])
        let published = try client.waitFor("textDocument/publishDiagnostics")
        let diagnostics = try #require((published["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]])
        let messages = diagnostics.compactMap { $0["message"] as? String }
        #expect(messages.contains("plugin 'dates' has no transformer 'dates.prase' (did you mean 'dates.parse'?)"), "\(messages)")
        #expect(messages.contains("relationship 'owner' refers to undefined entity 'Usr' (did you mean 'User'?)"), "\(messages)")
        let usr = try #require(diagnostics.first { ($0["message"] as? String)?.contains("'Usr'") == true })
        let start = try #require((usr["range"] as? [String: Any])?["start"] as? [String: Any])
        #expect(start["line"] as? Int == 13)
        #expect(start["character"] as? Int == 36)

        try client.notify("textDocument/didChange", ["textDocument": ["uri": Self.uri, "version": 3], "contentChanges": [["text": Self.schema]]])
        _ = try client.waitFor("textDocument/publishDiagnostics")

        // Entity names where an entity is expected (line 13: `owner: { from: owner, entity: User }`).
        #expect(Set(labels(try client.request("textDocument/completion", position(13, 38)))) == ["User", "Repository"])
        // Transformer names from the loaded plugin.
        let transformers = labels(try client.request("textDocument/completion", position(11, 58)))
        #expect(transformers.contains("dates.parse"), "\(transformers)")
        // Keys from the grammar in an entity, attribute names in identifiedBy, key-path operators.
        #expect(Set(labels(try client.request("textDocument/completion", position(4, 4)))).isSuperset(of: ["identifiedBy", "attributes", "relationships", "dynamic", "routes"]))
        #expect(Set(labels(try client.request("textDocument/completion", position(4, 18)))) == ["id", "login"])
        #expect(labels(try client.request("textDocument/completion", position(7, 13))).contains("@count"))

        // Hover: the grammar's description of a key; an entity's summary.
        let hover = try #require(try client.request("textDocument/hover", position(4, 6)) as? [String: Any])
        #expect(((hover["contents"] as? [String: Any])?["value"] as? String)?.contains("Attribute(s) identifying a record.") == true)
        let entityHover = try #require(try client.request("textDocument/hover", position(13, 37)) as? [String: Any])
        #expect(((entityHover["contents"] as? [String: Any])?["value"] as? String)?.hasPrefix("**entity User**") == true)

        // Definition: from the reference in the relationship to the declaration under entities.
        let definition = try #require(try client.request("textDocument/definition", position(13, 37)) as? [String: Any])
        #expect(definition["uri"] as? String == Self.uri)
        let declaration = try #require((definition["range"] as? [String: Any])?["start"] as? [String: Any])
        #expect(declaration["line"] as? Int == 3)
        #expect(declaration["character"] as? Int == 2)

        #expect(try client.finish() == 0)
    }

    @Test("Without configured plugin folders, no third-party plugin loads and completion says why")
    func pluginsOnlyFromSettings() throws {
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        // A third-party plugin in the place of the first-party dates (which loads without settings).
        let text = Self.schema.replacingOccurrences(of: "dates", with: "geoxx")
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        let published = try client.waitFor("textDocument/publishDiagnostics")
        let messages = ((published["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.hasPrefix("plugin 'geoxx' is not loaded: the language server loads plugins only from the folders in the 'restmap.pluginPaths' setting") }, "\(messages)")
        let completion = try #require(try client.request("textDocument/completion", position(11, 58)) as? [String: Any])
        let items = try #require(completion["items"] as? [[String: Any]])
        #expect(items.count == 1)
        #expect((items.first?["detail"] as? String) == "no completions: plugin 'geoxx' is not loaded")
        #expect(try client.finish() == 0)
    }

    @Test("Completion inside flow mappings: connect, keyedBy, dynamic cases, transformer arguments, metadata keys")
    func flowCompletion() throws {
        let text = """
            restmap: 1
            plugins: [dates]
            entities:
              Task:
                attributes:
                  taskID: { from: id, type: integer, transform: { dates.parse: { f } } }
                  assignedUserID: assigned
                relationships:
                  assignee: { entity: User, connect: { a: u } }
              User:
                attributes: { userID: id, login: login }
              Person:
                dynamic: { by: type, cases: { a: T } }
            responses:
              - { path: /users, entity: User, keyedBy: l }
              - { path: /tasks, entity: Task, keyPath: "@metadata.r" }
              - { path: /people, entity: Person }

            """
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any],
                                              "initializationOptions": ["pluginPaths": [Self.buildDirectory.path]]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        _ = try client.waitFor("textDocument/publishDiagnostics")
        // Transformer arguments (`{ f` on line 5), connect keys from the entity and values from the target.
        #expect(Set(labels(try client.request("textDocument/completion", position(5, 70)))) == ["formats", "timeZone", "locale"])
        #expect(Set(labels(try client.request("textDocument/completion", position(8, 44)))) == ["taskID", "assignedUserID"])
        #expect(Set(labels(try client.request("textDocument/completion", position(8, 47)))) == ["userID", "login"])
        #expect(Set(labels(try client.request("textDocument/completion", position(12, 38)))) == ["Task", "User", "Person"])
        #expect(Set(labels(try client.request("textDocument/completion", position(14, 44)))) == ["userID", "login"])
        #expect(labels(try client.request("textDocument/completion", position(15, 55))).contains("@metadata.routing.parameters."))
        // Hover on a key inside a flow mapping shows the grammar's description.
        let hover = try #require(try client.request("textDocument/hover", position(14, 36)) as? [String: Any])
        #expect(((hover["contents"] as? [String: Any])?["value"] as? String)?.contains("The object's keys are records") == true)
        #expect(try client.finish() == 0)
    }

    @Test("A schema test file is checked against the test-file grammar; its entities come from the schema it names")
    func testFiles() throws {
        let schema = CLIPaths.repository.appendingPathComponent("Schemas/tasks.yaml").path
        let text = """
            restmapTest: 1
            schema: \(schema)
            cases:
              - name: a task
                expcet: {}
              - name: another
                expect:
                  records:
                    - { entity: Task }

            """
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        let uri = "file:///work/tests/tasks.yaml"
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": text]])
        let published = try client.waitFor("textDocument/publishDiagnostics")
        let diagnostics = try #require((published["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.compactMap { $0["message"] as? String } == [
            "unknown key 'expcet' in case (did you mean 'expect'?)",
        ])
        func at(_ line: Int, _ character: Int) -> [String: Any] {
            ["textDocument": ["uri": uri], "position": ["line": line, "character": character]]
        }
        #expect(Set(labels(try client.request("textDocument/completion", at(8, 20)))) == ["User", "Project", "Task"])
        #expect(labels(try client.request("textDocument/completion", at(6, 6))).contains("bodyFile"))
        let definition = try #require(try client.request("textDocument/definition", at(8, 21)) as? [String: Any])
        #expect(definition["uri"] as? String == URL(fileURLWithPath: schema).absoluteString)
        #expect(try client.finish() == 0)
    }

    @Test("Random edits of the example schemas never break the server: every request is answered, exit is clean")
    func randomEdits() throws {
        let folder = CLIPaths.repository.appendingPathComponent("Schemas")
        let texts = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }.sorted()
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
        let inserts = ["", "{", "[", ": ", "\"", "@", "\t", "- ", "é😀", "\n  x: {a: [", "\\"]
        var random = SystemRandomNumberGenerator()
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any],
                                              "initializationOptions": ["pluginPaths": [Self.buildDirectory.path]]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": ""]])
        for version in 2..<62 {
            let text = Array(texts.randomElement(using: &random)!.unicodeScalars)
            let cut = Int.random(in: 0...text.count, using: &random)
            let resume = Int.random(in: cut...text.count, using: &random)
            let edited = String(String.UnicodeScalarView(text[..<cut])) + inserts.randomElement(using: &random)!
                + String(String.UnicodeScalarView(text[resume...]))
            try client.notify("textDocument/didChange", ["textDocument": ["uri": Self.uri, "version": version], "contentChanges": [["text": edited]]])
            let lines = edited.split(separator: "\n", omittingEmptySubsequences: false).count
            for method in ["textDocument/completion", "textDocument/hover", "textDocument/definition"] {
                let at = position(Int.random(in: 0...lines, using: &random), Int.random(in: 0...90, using: &random))
                _ = try client.request(method, at)  // throws unless the server answers this request
            }
        }
        #expect(client.errors.isEmpty, "\(client.errors)")
        #expect(try client.finish() == 0)
    }
}

/// The repository root, for tests that open its files.
enum CLIPaths {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

import Foundation
import Testing

/// `restmap lsp`: stale texts are not analyzed, first-party plugins need no setting, and
/// completion lists each item once.
@Suite("restmap lsp: superseded analyses, first-party plugins, completion without duplicates")
struct AnalysisAndCompletionTests {
    typealias Client = LanguageServerProtocolTests.Client
    static let uri = LanguageServerProtocolTests.uri

    func frame(_ message: [String: Any]) throws -> Data {
        let body = try JSONSerialization.data(withJSONObject: message)
        return Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    func labels(_ result: Any?) -> [String] {
        ((result as? [String: Any])?["items"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
    }

    func position(_ line: Int, _ character: Int) -> [String: Any] {
        ["textDocument": ["uri": Self.uri], "position": ["line": line, "character": character]]
    }

    func messages(_ notification: [String: Any]) -> [String] {
        ((notification["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    /// A text whose one error names `entity`, and whose second entity is `extra`.
    func text(referring entity: String, extra: String) -> String {
        """
        restmap: 1
        entities:
          User:
            attributes: { id: id }
          \(extra):
            attributes: { id: id }
        responses:
          - { path: /users, entity: \(entity) }
          - { path: /extra, entity: \(extra) }

        """
    }

    @Test("Edits received together: only the latest text is analyzed and published, and a hover answers against it")
    func supersededEdits() throws {
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        // One write of under 4 KiB (atomic on a pipe): the server receives the open, three edits
        // and a hover together.
        var batch = try frame(["jsonrpc": "2.0", "method": "textDocument/didOpen", "params": ["textDocument": [
            "uri": Self.uri, "languageId": "yaml", "version": 1, "text": text(referring: "Usr1", extra: "First")]]])
        for (version, (entity, extra)) in [("Usr2", "Second"), ("Usr3", "Third"), ("Usr4", "Fourth")].enumerated() {
            batch += try frame(["jsonrpc": "2.0", "method": "textDocument/didChange", "params": [
                "textDocument": ["uri": Self.uri, "version": version + 2],
                "contentChanges": [["text": text(referring: entity, extra: extra)]]]])
        }
        batch += try frame(["jsonrpc": "2.0", "id": 100, "method": "textDocument/hover", "params": position(4, 4)])
        try #require(batch.count < 4096)
        client.input.fileHandleForWriting.write(batch)

        let published = try client.waitFor("textDocument/publishDiagnostics")
        #expect(messages(published).contains("response refers to undefined entity 'Usr4'"), "\(messages(published))")
        let statistics = try #require(try client.request("restmap/analysisStatistics", [:]) as? [String: Any])
        #expect(statistics["started"] as? Int == 1, "\(statistics)")
        #expect(statistics["superseded"] as? Int == 3, "\(statistics)")
        #expect(statistics["published"] as? Int == 1, "\(statistics)")
        #expect(statistics["cancelled"] as? Int == 0, "\(statistics)")
        // The hover (id 100) came in the batch: its answer is about the latest text's entity.
        let hover = try #require(client.notifications.first { $0["id"] as? Int == 100 })
        let value = (((hover["result"] as? [String: Any])?["contents"] as? [String: Any])?["value"] as? String) ?? ""
        #expect(value.hasPrefix("**entity Fourth**"), "\(hover)")
        #expect(!client.notifications.contains { $0["method"] as? String == "textDocument/publishDiagnostics" })
        #expect(try client.finish() == 0)
    }

    @Test("A hostile text is analyzed within the suggestion budget, which the statistics report")
    func hostileText() throws {
        var text = "restmap: 1\nentities:\n"
        for index in 0..<1500 {
            let name = "Entity" + String(repeating: "abcdefghij", count: 9) + String(index, radix: 26)
            text += "  \(name):\n    attributes: { id: id }\n    relationships:\n      r: { entity: \(name.dropLast())q }\n"
        }
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        let published = try client.waitFor("textDocument/publishDiagnostics")
        let undefined = messages(published).filter { $0.contains("refers to undefined entity") }
        #expect(undefined.count == 1500)
        #expect(messages(published).contains { $0.hasPrefix("'did you mean' suggestions stopped after 5000000 steps") })
        let statistics = try #require(try client.request("restmap/analysisStatistics", [:]) as? [String: Any])
        let steps = try #require(statistics["suggestionSteps"] as? Int)
        #expect(steps == 5_000_000, "\(statistics)")
        #expect(statistics["suggestionLimit"] as? Int == 5_000_000)
        #expect(try client.finish() == 0)
    }

    @Test("First-party plugins beside the binary complete without any setting; a third-party one still needs pluginPaths")
    func firstPartyPluginsWithoutSettings() throws {
        let text = """
            restmap: 1
            plugins: [dates, ids, geo]
            entities:
              Event:
                attributes:
                  at: { from: at, type: date, transform: dates.parse }
            responses:
              - { entity: Event }

            """
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        let published = messages(try client.waitFor("textDocument/publishDiagnostics"))
        #expect(!published.contains { $0.contains("'dates'") || $0.contains("'ids'") }, "\(published)")
        #expect(published.contains { $0.hasPrefix("plugin 'geo' is not loaded: the language server loads plugins only from the folders in the 'restmap.pluginPaths' setting") }, "\(published)")
        let items = labels(try client.request("textDocument/completion", position(5, 56)))
        #expect(items.contains("dates.parse"), "\(items)")
        #expect(items.contains("dates.iso8601"), "\(items)")
        #expect(items.contains { $0.hasPrefix("ids.") }, "\(items)")
        #expect(items.contains("geo."), "\(items)")
        let hover = try #require(try client.request("textDocument/hover", position(5, 52)) as? [String: Any])
        #expect(((hover["contents"] as? [String: Any])?["value"] as? String)?.hasPrefix("**dates.parse**") == true, "\(hover)")
        #expect(try client.finish() == 0)
    }

    @Test("Completion lists each item once: type values, methods, entities, attributes, transformers")
    func noDuplicates() throws {
        let text = """
            restmap: 1
            plugins: [dates, dates]
            entities:
              User:
                attributes: [id, login, id]
              Task:
                attributes:
                  due: { from: due, type: , transform:  }
                relationships:
                  owner: { entity: User, keyedBy: }
            responses:
              - { method: , path: /users, entity:  }

            """
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        _ = try client.waitFor("textDocument/publishDiagnostics")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        /// The position just after `marker` on the 0-based `line`.
        func after(_ marker: String, line: Int) throws -> [String: Any] {
            let range = try #require(lines[line].range(of: marker))
            return position(line, lines[line].distance(from: lines[line].startIndex, to: range.upperBound))
        }
        let type = labels(try client.request("textDocument/completion", after("type: ", line: 7)))
        #expect(type.contains("string") && type.contains("integer") && type.contains("date"), "\(type)")
        #expect(type.count == Set(type).count, "type: \(type)")
        for (line, marker, expected) in [(7, "transform: ", "dates.parse"), (9, "keyedBy: ", "login"), (11, "method: ", "GET"), (11, "entity: ", "User")] {
            let items = labels(try client.request("textDocument/completion", after(marker, line: line)))
            #expect(items.contains(expected), "\(line) after \(marker): \(items)")
            #expect(items.count == Set(items).count, "\(line) after \(marker): \(items)")
        }
        #expect(try client.finish() == 0)
    }

    @Test("The sync: section completes its keys and entities, and its errors are published at their positions")
    func syncSection() throws {
        let text = """
            restmap: 1
            entities:
              Account: { identifiedBy: id, attributes: [id] }
              Event: { identifiedBy: id, attributes: [id, updated_at] }
            responses:
              - { path: "/accounts/:accountID/events", entity: Event }
            routes:
              events: GET /accounts/:accountID/events
            sync:
              events:
                route: evnts
                entity: Event
                parent: { entity:  }
                cursor: { attribute: updated_at, parameter: since }

            """
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        let published = messages(try client.waitFor("textDocument/publishDiagnostics"))
        #expect(published.contains("no route named 'evnts' (did you mean 'events'?)"), "\(published)")
        let keys = Set(labels(try client.request("textDocument/completion", position(10, 4))))
        #expect(keys.isSuperset(of: ["route", "entity", "parent", "cursor"]), "\(keys)")
        let cursorKeys = Set(labels(try client.request("textDocument/completion", position(13, 14))))
        #expect(cursorKeys.isSuperset(of: ["attribute", "token", "parameter", "lookback", "window", "endParameter"]), "\(cursorKeys)")
        let entities = Set(labels(try client.request("textDocument/completion", position(12, 23))))
        #expect(entities.isSuperset(of: ["Account", "Event"]), "\(entities)")
        #expect(try client.finish() == 0)
    }
}

import Foundation
import Testing

/// `restmap lsp` answers what it cannot serve with JSON-RPC's errors, ignores notifications it
/// does not know, and goes on serving; and it applies a change of a range of a text.
@Suite("restmap lsp: error replies and changes of ranges")
struct ProtocolErrorTests {
    typealias Client = LanguageServerProtocolTests.Client
    static let uri = LanguageServerProtocolTests.uri

    /// Writes one framed message body as is.
    func write(_ body: String, to client: Client) {
        let bytes = Data(body.utf8)
        client.input.fileHandleForWriting.write(Data("Content-Length: \(bytes.count)\r\n\r\n".utf8) + bytes)
    }

    /// The messages received before the response to a statistics request (which follows the
    /// messages written before it): the answers to those messages.
    func answers(_ client: Client) throws -> [[String: Any]] {
        let before = client.notifications.count
        _ = try client.request("restmap/analysisStatistics", [:])
        return Array(client.notifications[before...])
    }

    func error(_ message: [String: Any]) -> (code: Int?, text: String?) {
        let error = message["error"] as? [String: Any]
        return (error?["code"] as? Int, error?["message"] as? String)
    }

    @Test("Not JSON is a parse error, JSON that is no message an invalid request; both answered with a null id")
    func parseErrorAndInvalidRequest() throws {
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        write("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ", to: client)
        write("[1]", to: client)
        write("{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": 42}", to: client)
        write("{\"jsonrpc\": \"2.0\", \"id\": true, \"method\": \"shutdown\"}", to: client)
        let replies = try answers(client)
        try #require(replies.count == 4, "\(replies)")
        #expect(error(replies[0]).code == -32700)
        #expect(replies[0]["id"] is NSNull, "\(replies[0])")
        #expect(error(replies[1]).code == -32600)
        #expect(replies[1]["id"] is NSNull, "\(replies[1])")
        #expect(error(replies[2]).code == -32600)
        #expect(replies[2]["id"] as? Int == 8, "\(replies[2])")
        #expect(error(replies[3]).code == -32600)
        #expect(replies[3]["id"] is NSNull, "\(replies[3])")
        #expect(try client.finish() == 0)
    }

    @Test("An unknown request is MethodNotFound with its id (a number or a string); an unknown notification is ignored")
    func methodNotFound() throws {
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        _ = try client.request("textDocument/formatting", ["textDocument": ["uri": Self.uri], "options": [:] as [String: Any]])
        let found = try #require(client.errors.last)
        #expect(found["code"] as? Int == -32601)
        #expect(found["message"] as? String == "method not found: textDocument/formatting")
        try client.send(["jsonrpc": "2.0", "id": "abc", "method": "workspace/symbol", "params": ["query": ""]])
        try client.notify("$/cancelRequest", ["id": 1])
        try client.notify("textDocument/didSave", ["textDocument": ["uri": Self.uri]])
        try client.notify("workspace/didChangeWatchedFiles", ["changes": [] as [Any]])
        let replies = try answers(client)
        try #require(replies.count == 1, "\(replies)")
        #expect(replies[0]["id"] as? String == "abc")
        #expect(error(replies[0]).code == -32601)
        #expect(try client.finish() == 0)
    }

    @Test("A request with bad params is InvalidParams saying what is wrong; a notification with bad params is ignored")
    func invalidParams() throws {
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": "restmap: 1\n"]])
        _ = try client.waitFor("textDocument/publishDiagnostics")

        #expect(try client.request("textDocument/hover", ["textDocument": ["uri": Self.uri], "position": ["line": "one", "character": 0]]) == nil)
        var error = try #require(client.errors.last)
        #expect(error["code"] as? Int == -32602)
        #expect(error["message"] as? String == "invalid params of textDocument/hover: params.position.line: expected Int", "\(error)")

        #expect(try client.request("textDocument/completion", ["textDocument": ["uri": Self.uri]]) == nil)
        error = try #require(client.errors.last)
        #expect(error["code"] as? Int == -32602)
        #expect(error["message"] as? String == "invalid params of textDocument/completion: missing params.position", "\(error)")

        try client.send(["jsonrpc": "2.0", "id": 99, "method": "textDocument/definition"])
        try client.notify("textDocument/didChange", ["textDocument": ["uri": Self.uri], "contentChanges": [["range": "all"]]])
        try client.notify("textDocument/didOpen", ["textDocument": 3])
        let replies = try answers(client)
        try #require(replies.count == 1, "\(replies)")
        #expect(replies[0]["id"] as? Int == 99)
        #expect(self.error(replies[0]).code == -32602)

        // A position in a document that is not open is no error: nothing is there.
        #expect(try client.request("textDocument/hover", ["textDocument": ["uri": "file:///work/other.yaml"], "position": ["line": 0, "character": 0]]) is NSNull)
        #expect(client.errors.count == 2)
        #expect(try client.finish() == 0)
    }

    @Test("A change of a range replaces that range, its positions in UTF-16 code units")
    func changeOfRange() throws {
        let text = """
            restmap: 1
            entities:
              User:
                attributes: { name: "😀é", id: id }
            responses:
              - { path: /users, entity: User }

            """
        let client = try Client()
        _ = try client.request("initialize", ["processId": NSNull(), "rootUri": NSNull(), "capabilities": [:] as [String: Any]])
        try client.notify("textDocument/didOpen", ["textDocument": ["uri": Self.uri, "languageId": "yaml", "version": 1, "text": text]])
        _ = try client.waitFor("textDocument/publishDiagnostics")
        // `id` on line 3 after `"😀é", ` starts at UTF-16 character 31 (the emoji is two units): rename it to `key`.
        func range(_ line: Int, _ start: Int, _ end: Int) -> [String: Any] {
            ["start": ["line": line, "character": start], "end": ["line": line, "character": end]]
        }
        try client.notify("textDocument/didChange", ["textDocument": ["uri": Self.uri, "version": 2], "contentChanges": [
            ["range": range(3, 31, 33), "text": "key"],
            // Then the entity's name in the response, to one never declared.
            ["range": range(5, 28, 32), "text": "Usr"],
        ]])
        let published = try client.waitFor("textDocument/publishDiagnostics")
        let diagnostics = (published["params"] as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []
        let messages = diagnostics.compactMap { $0["message"] as? String }
        let usr = try #require(diagnostics.first { ($0["message"] as? String)?.hasPrefix("response refers to undefined entity 'Usr'") == true },
                               "\(messages)")
        let start = (usr["range"] as? [String: Any])?["start"] as? [String: Any]
        #expect(start?["line"] as? Int == 5)
        #expect(start?["character"] as? Int == 28)
        // The attribute renamed: hover on `key` finds the word there.
        let hover = try #require(try client.request("textDocument/hover", ["textDocument": ["uri": Self.uri], "position": ["line": 2, "character": 3]]) as? [String: Any])
        #expect(((hover["contents"] as? [String: Any])?["value"] as? String)?.contains("id, key") == false)
        #expect(((hover["contents"] as? [String: Any])?["value"] as? String)?.contains("name, key") == true, "\(hover)")
        #expect(try client.finish() == 0)
    }
}

import Foundation
import RestMapSchema

/// A Language Server (LSP 3.17, JSON-RPC over stdio) for RestMap schema files: diagnostics as
/// the file changes, completion, hover and go to definition. See Docs/Authoring.md.
///
/// Plugins load only from the folders in the editor's settings (`initializationOptions.pluginPaths`
/// or the `restmap.pluginPaths` workspace setting), never from the workspace by themselves.
public final class LanguageServer {
    private var transport: MessageTransport
    private var documents: [String: TextDocument] = [:]
    private var analyses: [String: SchemaAnalysis] = [:]
    let plugins = PluginStore()
    private var shutdownRequested = false

    public init(input: FileHandle = .standardInput, output: FileHandle = .standardOutput) {
        transport = MessageTransport(input: input, output: output)
    }

    /// Serves until `exit` or the end of the input; returns the process exit status
    /// (0 after `shutdown` then `exit`, 1 otherwise, as LSP says).
    public func run() -> Int32 {
        while true {
            let bytes: [UInt8]?
            do { bytes = try transport.read() } catch {
                log("restmap lsp: \(error)")
                return 1
            }
            guard let bytes else { return shutdownRequested ? 0 : 1 }
            guard let message = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
                send(["jsonrpc": "2.0", "id": NSNull(), "error": ["code": -32700, "message": "parse error"]])
                continue
            }
            if message["method"] as? String == "exit" { return shutdownRequested ? 0 : 1 }
            handle(message)
        }
    }

    // MARK: Dispatch

    private func handle(_ message: [String: Any]) {
        let id = message["id"]
        let params = message["params"] as? [String: Any] ?? [:]
        guard let method = message["method"] as? String else { return }  // a response to us: none expected
        switch method {
        case "initialize":
            configure(params["initializationOptions"])
            reply(id, [
                "capabilities": [
                    "positionEncoding": "utf-16",
                    "textDocumentSync": ["openClose": true, "change": 1],
                    "completionProvider": ["triggerCharacters": [":", " ", "@", ".", "[", "{", ","]],
                    "hoverProvider": true,
                    "definitionProvider": true,
                ] as [String: Any],
                "serverInfo": ["name": "restmap", "version": "1"],
            ])
        case "initialized":
            break
        case "shutdown":
            shutdownRequested = true
            reply(id, NSNull())
        case "workspace/didChangeConfiguration":
            configure((params["settings"] as? [String: Any])?["restmap"] ?? params["settings"])
            for uri in documents.keys { publish(uri) }
        case "textDocument/didOpen":
            guard let item = params["textDocument"] as? [String: Any], let uri = item["uri"] as? String,
                  let text = item["text"] as? String else { return }
            documents[uri] = TextDocument(uri: uri, text: text)
            publish(uri)
        case "textDocument/didChange":
            guard let uri = (params["textDocument"] as? [String: Any])?["uri"] as? String,
                  let text = (params["contentChanges"] as? [[String: Any]])?.last?["text"] as? String else { return }
            documents[uri] = TextDocument(uri: uri, text: text)
            publish(uri)
        case "textDocument/didClose":
            guard let uri = (params["textDocument"] as? [String: Any])?["uri"] as? String else { return }
            documents[uri] = nil
            analyses[uri] = nil
            send(["jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": ["uri": uri, "diagnostics": []]])
        case "textDocument/completion", "textDocument/hover", "textDocument/definition":
            guard let (document, analysis, line, character) = target(params) else { return reply(id, NSNull()) }
            let features = SchemaFeatures(document: document, analysis: analysis, plugins: plugins)
            switch method {
            case "textDocument/completion": reply(id, features.completion(line: line, character: character))
            case "textDocument/hover": reply(id, features.hover(line: line, character: character) ?? NSNull())
            default: reply(id, features.definition(line: line, character: character) ?? NSNull())
            }
        default:
            if id != nil {
                send(["jsonrpc": "2.0", "id": id!, "error": ["code": -32601, "message": "method not found: \(method)"]])
            }
        }
    }

    private func target(_ params: [String: Any]) -> (TextDocument, SchemaAnalysis, Int, Int)? {
        guard let uri = (params["textDocument"] as? [String: Any])?["uri"] as? String,
              let document = documents[uri], let analysis = analyses[uri],
              let position = params["position"] as? [String: Any],
              let line = position["line"] as? Int, let character = position["character"] as? Int else { return nil }
        return (document, analysis, line, character)
    }

    /// Reads `pluginPaths` from initialization options or settings.
    private func configure(_ settings: Any?) {
        guard let settings = settings as? [String: Any], let paths = settings["pluginPaths"] as? [String] else { return }
        plugins.configure(paths)
    }

    private func publish(_ uri: String) {
        guard let document = documents[uri] else { return }
        let analysis = SchemaAnalysis.analyze(document, plugins: plugins)
        analyses[uri] = analysis
        let diagnostics: [[String: Any]] = analysis.diagnostics.filter { $0.location.file == document.path }.map {
            ["range": document.range(of: $0.location), "severity": $0.severity == .error ? 1 : 2, "source": "restmap", "message": $0.message]
        }
        send(["jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": ["uri": uri, "diagnostics": diagnostics]])
    }

    // MARK: Writing

    private func reply(_ id: Any?, _ result: Any) {
        send(["jsonrpc": "2.0", "id": id ?? NSNull(), "result": result])
    }

    private func send(_ message: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: message, options: [.withoutEscapingSlashes]) else { return }
        transport.write(Array(data))
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

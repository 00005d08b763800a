import Foundation
import RestMapSchema

/// A Language Server (LSP 3.17, JSON-RPC over stdio) for RestMap schema files: diagnostics as
/// the file changes, completion, hover and go to definition. See Docs/Authoring.md.
///
/// The first-party plugins (`dates`, `ids`, `csv`) load from the `restmap` binary's folder or its
/// installed plugin folder without any setting; third-party plugins load only from the folders in
/// the editor's settings (`initializationOptions.pluginPaths` or the `restmap.pluginPaths`
/// workspace setting), never from the workspace by themselves.
public final class LanguageServer {
    private let transport: MessageTransport
    private let input: FileHandle
    private var documents: [String: TextDocument] = [:]
    private var analyses: [String: SchemaAnalysis] = [:]
    /// Per document, how many texts it has had, and the one its analysis is of.
    private var textVersions: [String: Int] = [:]
    private var analyzedVersions: [String: Int] = [:]
    private let inbox = Inbox()
    private var statistics = AnalysisStatistics()
    let plugins = PluginStore()
    private var shutdownRequested = false

    public init(input: FileHandle = .standardInput, output: FileHandle = .standardOutput) {
        self.input = input
        transport = MessageTransport(input: input, output: output)
    }

    /// Serves until `exit` or the end of the input; returns the process exit status
    /// (0 after `shutdown` then `exit`, 1 otherwise, as LSP says).
    ///
    /// A reader thread takes messages in as they arrive, so that a new text of a document
    /// cancels the analysis of its older text still running, and a text replaced by a newer
    /// one already received is never analyzed: requests are answered against the latest text
    /// without waiting behind work on stale ones.
    public func run() -> Int32 {
        let reader = Thread { [inbox, input] in
            var transport = MessageTransport(input: input, output: .nullDevice)
            while true {
                do {
                    guard let batch = try transport.readBatch() else { return inbox.close(error: nil) }
                    inbox.push(batch.map(Incoming.init))
                } catch {
                    return inbox.close(error: "\(error)")
                }
            }
        }
        reader.start()
        while true {
            let next = inbox.pop()
            guard case .message(let incoming) = next else {
                if case .end(let error?) = next {
                    log("restmap lsp: \(error)")
                    return 1
                }
                return shutdownRequested ? 0 : 1
            }
            guard let message = incoming.message else {
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
            for uri in documents.keys { textVersions[uri, default: 0] += 1; publish(uri) }
        case "textDocument/didOpen":
            guard let item = params["textDocument"] as? [String: Any], let uri = item["uri"] as? String,
                  let text = item["text"] as? String else { return }
            documents[uri] = TextDocument(uri: uri, text: text)
            textVersions[uri, default: 0] += 1
            publish(uri)
        case "textDocument/didChange":
            guard let uri = (params["textDocument"] as? [String: Any])?["uri"] as? String,
                  let text = (params["contentChanges"] as? [[String: Any]])?.last?["text"] as? String else { return }
            documents[uri] = TextDocument(uri: uri, text: text)
            textVersions[uri, default: 0] += 1
            publish(uri)
        case "textDocument/didClose":
            guard let uri = (params["textDocument"] as? [String: Any])?["uri"] as? String else { return }
            documents[uri] = nil
            analyses[uri] = nil
            analyzedVersions[uri] = nil
            send(["jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": ["uri": uri, "diagnostics": []]])
        case "textDocument/completion", "textDocument/hover", "textDocument/definition":
            guard let (document, analysis, line, character) = target(params) else { return reply(id, NSNull()) }
            let features = SchemaFeatures(document: document, analysis: analysis, plugins: plugins)
            switch method {
            case "textDocument/completion": reply(id, features.completion(line: line, character: character))
            case "textDocument/hover": reply(id, features.hover(line: line, character: character) ?? NSNull())
            default: reply(id, features.definition(line: line, character: character) ?? NSNull())
            }
        case "restmap/analysisStatistics":
            reply(id, statistics.json)
        default:
            if id != nil {
                send(["jsonrpc": "2.0", "id": id!, "error": ["code": -32601, "message": "method not found: \(method)"]])
            }
        }
    }

    private func target(_ params: [String: Any]) -> (TextDocument, SchemaAnalysis, Int, Int)? {
        guard let uri = (params["textDocument"] as? [String: Any])?["uri"] as? String, let document = documents[uri] else { return nil }
        if analyzedVersions[uri] != textVersions[uri] {
            // The text was replaced by one never analyzed (its analysis was superseded): analyze it
            // now; a newer text arriving meanwhile cancels the rest, and the tree read so far answers.
            analyses[uri] = analyze(document, uri: uri) ?? analyses[uri]
        }
        guard let analysis = analyses[uri],
              let position = params["position"] as? [String: Any],
              let line = position["line"] as? Int, let character = position["character"] as? Int else { return nil }
        return (document, analysis, line, character)
    }

    /// Reads `pluginPaths` from initialization options or settings.
    private func configure(_ settings: Any?) {
        guard let settings = settings as? [String: Any], let paths = settings["pluginPaths"] as? [String] else { return }
        plugins.configure(paths)
    }

    /// Analyzes a document's current text unless a newer one was already received; publishes its
    /// diagnostics unless a newer text arrived while it ran.
    private func publish(_ uri: String) {
        guard let document = documents[uri] else { return }
        if inbox.hasPendingText(for: uri) {
            statistics.superseded += 1
            return
        }
        guard let analysis = analyze(document, uri: uri), !analysis.wasCancelled else { return }
        let diagnostics: [[String: Any]] = analysis.diagnostics.filter { $0.location.file == document.path }.map {
            ["range": document.range(of: $0.location), "severity": $0.severity == .error ? 1 : 2, "source": "restmap", "message": $0.message]
        }
        send(["jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": ["uri": uri, "diagnostics": diagnostics]])
        statistics.published += 1
    }

    /// Analyzes the current text of a document, cancellable by a newer text arriving; keeps the
    /// analysis when it completed.
    private func analyze(_ document: TextDocument, uri: String) -> SchemaAnalysis? {
        let cancellation = inbox.beginAnalysis(of: uri)
        defer { inbox.endAnalysis(of: uri) }
        statistics.started += 1
        let analysis = SchemaAnalysis.analyze(document, plugins: plugins, cancellation: cancellation)
        statistics.suggestionSteps += analysis.suggestionSteps
        if analysis.wasCancelled {
            statistics.cancelled += 1
            return analysis
        }
        analyses[uri] = analysis
        analyzedVersions[uri] = textVersions[uri]
        return analysis
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

/// One message as the reader thread received it, parsed (`nil` when it is not a JSON object).
private struct Incoming: @unchecked Sendable {
    // A JSON object of Foundation values, never mutated once parsed: safe to hand to the main loop.
    let message: [String: Any]?

    init(_ bytes: [UInt8]) {
        message = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// The document whose text this message replaces (didOpen, didChange, didClose), if any.
    var textURI: String? {
        guard let method = message?["method"] as? String,
              ["textDocument/didOpen", "textDocument/didChange", "textDocument/didClose"].contains(method) else { return nil }
        return ((message?["params"] as? [String: Any])?["textDocument"] as? [String: Any])?["uri"] as? String
    }
}

/// The messages received and not yet handled, shared by the reader thread and the main loop;
/// it knows which documents have a newer text waiting, and cancels the analysis of a document
/// whose newer text arrives.
private final class Inbox: @unchecked Sendable {
    enum Next {
        case message(Incoming)
        case end(error: String?)
    }

    private let condition = NSCondition()
    private var queue: [Incoming] = []
    private var head = 0
    private var ended: String?? = nil
    private var pendingTexts: [String: Int] = [:]
    private var running: [String: ValidationCancellation] = [:]

    /// Adds messages received together; a text change among them cancels its document's analysis.
    func push(_ messages: [Incoming]) {
        condition.withLock {
            for message in messages {
                queue.append(message)
                if let uri = message.textURI {
                    pendingTexts[uri, default: 0] += 1
                    running[uri]?.cancel()
                }
            }
            condition.signal()
        }
    }

    /// Marks the end of the input (with the reason when it was unreadable).
    func close(error: String?) {
        condition.withLock {
            ended = .some(error)
            condition.signal()
        }
    }

    /// The next message, waiting for one; `.end` once the input ended and every message was taken.
    func pop() -> Next {
        condition.withLock {
            while head == queue.count {
                if let ended { return .end(error: ended) }
                condition.wait()
            }
            let message = queue[head]
            head += 1
            if head > 1024, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            if let uri = message.textURI { pendingTexts[uri, default: 1] -= 1 }
            return .message(message)
        }
    }

    /// Whether a newer text of the document was received and not yet handled.
    func hasPendingText(for uri: String) -> Bool {
        condition.withLock { pendingTexts[uri, default: 0] > 0 }
    }

    /// A cancellation for an analysis of the document's current text, cancelled at once if a
    /// newer text is already waiting.
    func beginAnalysis(of uri: String) -> ValidationCancellation {
        condition.withLock {
            let cancellation = ValidationCancellation()
            if pendingTexts[uri, default: 0] > 0 { cancellation.cancel() }
            running[uri] = cancellation
            return cancellation
        }
    }

    func endAnalysis(of uri: String) {
        condition.withLock { running[uri] = nil }
    }
}

/// Counts of the analyses the server ran, answered to the `restmap/analysisStatistics` request:
/// how much work edits cost, and how much stale work was avoided.
private struct AnalysisStatistics {
    /// Analyses started.
    var started = 0
    /// Analyses stopped because a newer text of their document arrived.
    var cancelled = 0
    /// Texts never analyzed because a newer one had already arrived.
    var superseded = 0
    /// Diagnostics published.
    var published = 0
    /// Steps taken by "did you mean" suggestions, over every analysis.
    var suggestionSteps = 0

    var json: [String: Any] {
        ["started": started, "cancelled": cancelled, "superseded": superseded, "published": published,
         "suggestionSteps": suggestionSteps, "suggestionLimit": SuggestionBudget.defaultLimit]
    }
}

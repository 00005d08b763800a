import FoundationEssentials
import RestMap
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
    private let input: Int32
    private let output: Int32
    private var documents: [String: TextDocument] = [:]
    private var analyses: [String: SchemaAnalysis] = [:]
    /// Per document, how many texts it has had, and the one its analysis is of.
    private var textVersions: [String: Int] = [:]
    private var analyzedVersions: [String: Int] = [:]
    private let inbox = Inbox()
    private var statistics = AnalysisStatistics()
    let plugins = PluginStore()
    private var shutdownRequested = false
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// A server reading requests from the file descriptor `input` and answering on `output`.
    public init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
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
        let started = SystemThread.start { [inbox, input, output] in
            var transport = MessageTransport(input: input, output: output)
            let decoder = JSONDecoder()
            while true {
                do {
                    guard let batch = try transport.readBatch() else { return inbox.close(error: nil) }
                    inbox.push(batch.map { IncomingMessage.decode($0, with: decoder) })
                } catch {
                    return inbox.close(error: "\(error)")
                }
            }
        }
        guard started else {
            log("restmap lsp: cannot start the thread that reads messages")
            return 1
        }
        while true {
            let next = inbox.pop()
            guard case .message(let message) = next else {
                if case .end(let error?) = next {
                    log("restmap lsp: \(error)")
                    return 1
                }
                return shutdownRequested ? 0 : 1
            }
            switch message {
            case .request(let id, let request): handle(request, id: id)
            case .notification(.exit): return shutdownRequested ? 0 : 1
            case .notification(let notification): handle(notification)
            case .response: break  // the server sends no request: no response is expected
            case .rejected(let id, let error): send(ErrorResponseMessage(id: id, error: error))
            case .ignored(let method, let reason): log("restmap lsp: ignored \(method): invalid params: \(reason)")
            }
        }
    }

    // MARK: Dispatch

    private func handle(_ request: ClientRequest, id: RequestID?) {
        switch request {
        case .initialize(let params):
            configure(params.initializationOptions)
            reply(id, LSP.InitializeResult(
                capabilities: LSP.ServerCapabilities(
                    positionEncoding: "utf-16",
                    textDocumentSync: LSP.TextDocumentSyncOptions(openClose: true, change: .full),
                    completionProvider: LSP.CompletionOptions(triggerCharacters: [":", " ", "@", ".", "[", "{", ","]),
                    hoverProvider: true,
                    definitionProvider: true
                ),
                serverInfo: LSP.ServerInfo(name: "restmap", version: "1")
            ))
        case .shutdown:
            shutdownRequested = true
            reply(id, JSONNull())
        case .completion(let params):
            guard let (document, analysis) = target(params.textDocument) else { return reply(id, JSONNull()) }
            let features = SchemaFeatures(document: document, analysis: analysis, plugins: plugins)
            reply(id, features.completion(line: params.position.line, character: params.position.character))
        case .hover(let params):
            guard let (document, analysis) = target(params.textDocument) else { return reply(id, JSONNull()) }
            let features = SchemaFeatures(document: document, analysis: analysis, plugins: plugins)
            reply(id, features.hover(line: params.position.line, character: params.position.character))
        case .definition(let params):
            guard let (document, analysis) = target(params.textDocument) else { return reply(id, JSONNull()) }
            let features = SchemaFeatures(document: document, analysis: analysis, plugins: plugins)
            reply(id, features.definition(line: params.position.line, character: params.position.character))
        case .analysisStatistics:
            reply(id, statistics)
        case .unknown(let method):
            send(ErrorResponseMessage(id: id, error: .methodNotFound(method)))
        }
    }

    private func handle(_ notification: ClientNotification) {
        switch notification {
        case .initialized, .exit, .unknown:
            break
        case .didChangeConfiguration(let params):
            configure(params.settings)
            for uri in documents.keys { textVersions[uri, default: 0] += 1; publish(uri) }
        case .didOpen(let params):
            let uri = params.textDocument.uri
            documents[uri] = TextDocument(uri: uri, text: params.textDocument.text)
            textVersions[uri, default: 0] += 1
            publish(uri)
        case .didChange(let params):
            let uri = params.textDocument.uri
            guard !params.contentChanges.isEmpty else { return }
            // Full sync (as announced) sends whole texts; a change of a range applies to the current text.
            let text = TextDocument.text(documents[uri]?.text ?? "", applying: params.contentChanges)
            documents[uri] = TextDocument(uri: uri, text: text)
            textVersions[uri, default: 0] += 1
            publish(uri)
        case .didClose(let params):
            let uri = params.textDocument.uri
            documents[uri] = nil
            analyses[uri] = nil
            analyzedVersions[uri] = nil
            send(NotificationMessage(method: "textDocument/publishDiagnostics", params: LSP.PublishDiagnosticsParams(uri: uri, diagnostics: [])))
        }
    }

    /// The open document a request is about, with its analysis of its current text.
    private func target(_ identifier: LSP.TextDocumentIdentifier) -> (TextDocument, SchemaAnalysis)? {
        let uri = identifier.uri
        guard let document = documents[uri] else { return nil }
        if analyzedVersions[uri] != textVersions[uri] {
            // The text was replaced by one never analyzed (its analysis was superseded): analyze it
            // now; a newer text arriving meanwhile cancels the rest, and the tree read so far answers.
            analyses[uri] = analyze(document, uri: uri) ?? analyses[uri]
        }
        guard let analysis = analyses[uri] else { return nil }
        return (document, analysis)
    }

    /// Takes `pluginPaths` from initialization options or settings.
    private func configure(_ settings: LSP.ServerSettings?) {
        guard let paths = settings?.pluginPaths else { return }
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
        let diagnostics = analysis.diagnostics.filter { $0.location.file == document.path }.map {
            LSP.Diagnostic(range: document.range(of: $0.location), severity: $0.severity == .error ? .error : .warning,
                           source: "restmap", message: $0.message)
        }
        send(NotificationMessage(method: "textDocument/publishDiagnostics", params: LSP.PublishDiagnosticsParams(uri: uri, diagnostics: diagnostics)))
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

    private func reply(_ id: RequestID?, _ result: some Encodable & Sendable) {
        send(ResponseMessage(id: id, result: result))
    }

    private func send(_ message: some Encodable) {
        do {
            transport.write(Array(try encoder.encode(message)))
        } catch {
            log("restmap lsp: cannot encode a message: \(error)")
        }
    }

    private func log(_ text: String) {
        DescriptorOutput.write(text + "\n", to: 2)
    }
}

/// The messages received and not yet handled, shared by the reader thread and the main loop;
/// it knows which documents have a newer text waiting, and cancels the analysis of a document
/// whose newer text arrives.
private final class Inbox: @unchecked Sendable {
    enum Next {
        case message(IncomingMessage)
        case end(error: String?)
    }

    private let condition = ConditionLock()
    private var queue: [IncomingMessage] = []
    private var head = 0
    private var ended: String?? = nil
    private var pendingTexts: [String: Int] = [:]
    private var running: [String: ValidationCancellation] = [:]

    /// Adds messages received together; a text change among them cancels its document's analysis.
    func push(_ messages: [IncomingMessage]) {
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
private struct AnalysisStatistics: Encodable, Sendable {
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
    /// The most steps suggestions may take in one analysis.
    let suggestionLimit = SuggestionBudget.defaultLimit
}

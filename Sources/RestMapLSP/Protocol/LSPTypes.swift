// The LSP 3.17 messages the server handles and sends, named as the specification names them
// (under `LSP`, so that `Range` and `Diagnostic` do not hide Swift's and RestMapSchema's).
// Only the fields the server reads or writes are declared: decoding ignores the others.

/// The requests the server serves, with their params.
enum ClientRequest: Sendable {
    case initialize(LSP.InitializeParams)
    case shutdown
    case completion(LSP.TextDocumentPositionParams)
    case hover(LSP.TextDocumentPositionParams)
    case definition(LSP.TextDocumentPositionParams)
    /// `restmap/analysisStatistics`: the counts of the analyses run (for tests and measurements).
    case analysisStatistics
    /// A method the server does not serve: answered with MethodNotFound.
    case unknown(method: String)

    /// The request of `method`, its params decoded from `key` of `container`.
    init<Key: CodingKey>(method: String, params container: KeyedDecodingContainer<Key>, key: Key) throws {
        switch method {
        case "initialize":
            // Every field read is optional: an initialize without params initializes.
            self = .initialize(try container.decodeIfPresent(LSP.InitializeParams.self, forKey: key) ?? LSP.InitializeParams())
        case "shutdown": self = .shutdown
        case "textDocument/completion": self = .completion(try container.decode(LSP.TextDocumentPositionParams.self, forKey: key))
        case "textDocument/hover": self = .hover(try container.decode(LSP.TextDocumentPositionParams.self, forKey: key))
        case "textDocument/definition": self = .definition(try container.decode(LSP.TextDocumentPositionParams.self, forKey: key))
        case "restmap/analysisStatistics": self = .analysisStatistics
        default: self = .unknown(method: method)
        }
    }
}

/// The notifications the server acts on, with their params.
enum ClientNotification: Sendable {
    case initialized
    case exit
    case didChangeConfiguration(LSP.DidChangeConfigurationParams)
    case didOpen(LSP.DidOpenTextDocumentParams)
    case didChange(LSP.DidChangeTextDocumentParams)
    case didClose(LSP.DidCloseTextDocumentParams)
    /// A method the server does not act on (`$/cancelRequest`, `textDocument/didSave`, …): ignored.
    case unknown(method: String)

    /// The notification of `method`, its params decoded from `key` of `container`.
    init<Key: CodingKey>(method: String, params container: KeyedDecodingContainer<Key>, key: Key) throws {
        switch method {
        case "initialized": self = .initialized
        case "exit": self = .exit
        case "workspace/didChangeConfiguration":
            self = .didChangeConfiguration(try container.decodeIfPresent(LSP.DidChangeConfigurationParams.self, forKey: key)
                ?? LSP.DidChangeConfigurationParams())
        case "textDocument/didOpen": self = .didOpen(try container.decode(LSP.DidOpenTextDocumentParams.self, forKey: key))
        case "textDocument/didChange": self = .didChange(try container.decode(LSP.DidChangeTextDocumentParams.self, forKey: key))
        case "textDocument/didClose": self = .didClose(try container.decode(LSP.DidCloseTextDocumentParams.self, forKey: key))
        default: self = .unknown(method: method)
        }
    }
}

/// The LSP structures, named as the specification names them.
enum LSP {
    // MARK: Basic structures

    /// A position in a document: a 0-based line, and a character offset in UTF-16 code units
    /// (the `utf-16` position encoding the server announces).
    struct Position: Codable, Sendable, Equatable {
        var line: Int
        var character: Int
    }

    /// A range of a document, its end exclusive.
    struct Range: Codable, Sendable, Equatable {
        var start: Position
        var end: Position
    }

    /// A range of the document at a URI.
    struct Location: Codable, Sendable, Equatable {
        var uri: String
        var range: Range
    }

    struct TextDocumentIdentifier: Codable, Sendable, Equatable {
        var uri: String
    }

    struct VersionedTextDocumentIdentifier: Codable, Sendable, Equatable {
        var uri: String
        /// Not used: the server counts the texts it receives itself.
        var version: Int?
    }

    /// A document as the client opens it.
    struct TextDocumentItem: Codable, Sendable, Equatable {
        var uri: String
        /// Not used: every document opened is read as a schema file.
        var languageId: String?
        /// Not used: the server counts the texts it receives itself.
        var version: Int?
        var text: String
    }

    struct TextDocumentPositionParams: Codable, Sendable, Equatable {
        var textDocument: TextDocumentIdentifier
        var position: Position
    }

    // MARK: Lifecycle

    struct InitializeParams: Codable, Sendable, Equatable {
        var initializationOptions: ServerSettings?

        init(initializationOptions: ServerSettings? = nil) {
            self.initializationOptions = initializationOptions
        }
    }

    /// The server's settings, from `initializationOptions` or the `restmap` workspace setting.
    /// Read leniently, as before: a setting of another type than expected is ignored.
    struct ServerSettings: Codable, Sendable, Equatable {
        /// The folders third-party plugins load from.
        var pluginPaths: [String]?

        private enum CodingKeys: String, CodingKey {
            case pluginPaths
        }

        init(pluginPaths: [String]? = nil) {
            self.pluginPaths = pluginPaths
        }

        init(from decoder: any Decoder) throws {
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            pluginPaths = (try? container?.decodeIfPresent([String].self, forKey: .pluginPaths)) ?? nil
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(pluginPaths, forKey: .pluginPaths)
        }
    }

    struct InitializeResult: Codable, Sendable, Equatable {
        var capabilities: ServerCapabilities
        var serverInfo: ServerInfo
    }

    struct ServerInfo: Codable, Sendable, Equatable {
        var name: String
        var version: String?
    }

    struct ServerCapabilities: Codable, Sendable, Equatable {
        var positionEncoding: String
        var textDocumentSync: TextDocumentSyncOptions
        var completionProvider: CompletionOptions
        var hoverProvider: Bool
        var definitionProvider: Bool
    }

    struct TextDocumentSyncOptions: Codable, Sendable, Equatable {
        var openClose: Bool
        var change: TextDocumentSyncKind
    }

    enum TextDocumentSyncKind: Int, Codable, Sendable {
        case none = 0, full = 1, incremental = 2
    }

    struct CompletionOptions: Codable, Sendable, Equatable {
        var triggerCharacters: [String]
    }

    // MARK: Configuration

    /// `workspace/didChangeConfiguration`: the settings are the `restmap` section when there is
    /// one, else the settings themselves.
    struct DidChangeConfigurationParams: Codable, Sendable, Equatable {
        var settings: ServerSettings?

        private enum CodingKeys: String, CodingKey {
            case settings
        }

        private enum SectionKeys: String, CodingKey {
            case restmap
        }

        init(settings: ServerSettings? = nil) {
            self.settings = settings
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let section = try? container.nestedContainer(keyedBy: SectionKeys.self, forKey: .settings), section.contains(.restmap) {
                settings = (try? section.decode(ServerSettings.self, forKey: .restmap)) ?? ServerSettings()
            } else {
                settings = try container.decodeIfPresent(ServerSettings.self, forKey: .settings)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(settings, forKey: .settings)
        }
    }

    // MARK: Synchronization

    struct DidOpenTextDocumentParams: Codable, Sendable, Equatable {
        var textDocument: TextDocumentItem
    }

    struct DidChangeTextDocumentParams: Codable, Sendable, Equatable {
        var textDocument: VersionedTextDocumentIdentifier
        var contentChanges: [TextDocumentContentChangeEvent]
    }

    /// A change of a document's text: the whole text (no range), or the text replacing a range.
    struct TextDocumentContentChangeEvent: Codable, Sendable, Equatable {
        var range: Range?
        /// Deprecated by LSP in favour of `range`; not used.
        var rangeLength: Int?
        var text: String
    }

    struct DidCloseTextDocumentParams: Codable, Sendable, Equatable {
        var textDocument: TextDocumentIdentifier
    }

    // MARK: Diagnostics

    struct PublishDiagnosticsParams: Codable, Sendable, Equatable {
        var uri: String
        var diagnostics: [Diagnostic]
    }

    struct Diagnostic: Codable, Sendable, Equatable {
        var range: Range
        var severity: DiagnosticSeverity
        var source: String?
        var message: String
    }

    enum DiagnosticSeverity: Int, Codable, Sendable {
        case error = 1, warning = 2, information = 3, hint = 4
    }

    // MARK: Language features

    struct CompletionList: Codable, Sendable, Equatable {
        var isIncomplete: Bool
        var items: [CompletionItem]
    }

    struct CompletionItem: Codable, Sendable, Equatable {
        var label: String
        var kind: CompletionItemKind
        var detail: String?
        /// Plain text.
        var documentation: String?
    }

    /// The kinds of completion items the server offers (LSP numbers them; these are its values).
    enum CompletionItemKind: Int, Codable, Sendable {
        case text = 1, method = 2, field = 5, `class` = 7, property = 10, value = 12, keyword = 14, `operator` = 24
    }

    struct Hover: Codable, Sendable, Equatable {
        var contents: MarkupContent
        var range: Range?
    }

    struct MarkupContent: Codable, Sendable, Equatable {
        /// `plaintext` or `markdown`.
        var kind: String
        var value: String
    }
}

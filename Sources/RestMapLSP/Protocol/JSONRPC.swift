import FoundationEssentials

// JSON-RPC 2.0 as LSP uses it: the envelope of the messages the server reads and writes.
// The LSP messages inside (their `params` and `result`) are in LSPTypes.swift.

/// The id of a request: a number or a string. A response repeats it (or is `null` when the
/// request's id could not be read).
enum RequestID: Hashable, Sendable, Codable {
    case number(Int)
    case string(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a request id is an integer or a string")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        }
    }
}

/// The error of a response that failed.
struct ResponseError: Codable, Sendable, Equatable {
    var code: Int
    var message: String

    // The codes JSON-RPC defines.
    static let parseErrorCode = -32700
    static let invalidRequestCode = -32600
    static let methodNotFoundCode = -32601
    static let invalidParamsCode = -32602

    /// The message is not JSON.
    static let parseError = ResponseError(code: parseErrorCode, message: "parse error")

    /// The message is JSON, but not a request, a notification or a response.
    static func invalidRequest(_ reason: String) -> ResponseError {
        ResponseError(code: invalidRequestCode, message: "invalid request: \(reason)")
    }

    /// A request of a method the server does not serve.
    static func methodNotFound(_ method: String) -> ResponseError {
        ResponseError(code: methodNotFoundCode, message: "method not found: \(method)")
    }

    /// A request whose params are not what its method takes.
    static func invalidParams(_ method: String, _ reason: String) -> ResponseError {
        ResponseError(code: invalidParamsCode, message: "invalid params of \(method): \(reason)")
    }
}

/// A JSON `null`: the result of a request that answers nothing (`shutdown`), or of one that
/// found nothing at a position.
struct JSONNull: Codable, Sendable, Equatable {
    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard container.decodeNil() else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected null")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

/// A successful response: `result` is always written, `null` included.
struct ResponseMessage<Result: Encodable & Sendable>: Encodable, Sendable {
    var id: RequestID?
    var result: Result

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, id, result
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)  // `null` when the request's id is unknown
        try container.encode(result, forKey: .result)
    }
}

/// A failed response.
struct ErrorResponseMessage: Encodable, Sendable {
    var id: RequestID?
    var error: ResponseError

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, id, error
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        try container.encode(error, forKey: .error)
    }
}

/// A notification from the server.
struct NotificationMessage<Params: Encodable & Sendable>: Encodable, Sendable {
    var method: String
    var params: Params

    private enum CodingKeys: String, CodingKey {
        case jsonrpc, method, params
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("2.0", forKey: .jsonrpc)
        try container.encode(method, forKey: .method)
        try container.encode(params, forKey: .params)
    }
}

/// A message from the client, decoded by its method into the params that method takes.
///
/// Decoding never fails once the message is a JSON object: what cannot be served becomes
/// `.rejected` (a request answered with an error) or `.ignored` (a notification, which has no
/// answer, with the reason to log).
enum IncomingMessage: Sendable, Decodable {
    case request(id: RequestID?, ClientRequest)
    case notification(ClientNotification)
    /// A response to a request of the server's: it sends none, so none is expected.
    case response
    /// Answered with the error (the id is `nil` when it could not be read).
    case rejected(id: RequestID?, ResponseError)
    /// A notification whose params are not what its method takes.
    case ignored(method: String, reason: String)

    private enum CodingKeys: String, CodingKey {
        case id, method, params
    }

    /// Decodes one message's JSON bytes: not JSON is a parse error; JSON that is not an object
    /// is an invalid request.
    static func decode(_ bytes: [UInt8], with decoder: JSONDecoder) -> IncomingMessage {
        do {
            return try decoder.decode(IncomingMessage.self, from: Data(bytes))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            return .rejected(id: nil, .parseError)
        } catch {
            return .rejected(id: nil, .invalidRequest("a message is a JSON object"))
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hasID = container.contains(.id)
        let id: RequestID?
        do {
            id = try container.decodeIfPresent(RequestID.self, forKey: .id)
        } catch {
            self = .rejected(id: nil, .invalidRequest("the id is not an integer, a string or null"))
            return
        }
        let method: String
        do {
            guard let name = try container.decodeIfPresent(String.self, forKey: .method) else {
                self = hasID ? .response : .rejected(id: nil, .invalidRequest("no method and no id"))
                return
            }
            method = name
        } catch {
            self = .rejected(id: id, .invalidRequest("the method is not a string"))
            return
        }
        if method == "exit" {
            // Ends the server however it comes (it answers nothing).
            self = .notification(.exit)
            return
        }
        do {
            self = hasID ? .request(id: id, try ClientRequest(method: method, params: container, key: .params))
                : .notification(try ClientNotification(method: method, params: container, key: .params))
        } catch let error as DecodingError {
            self = hasID ? .rejected(id: id, .invalidParams(method, error.summary)) : .ignored(method: method, reason: error.summary)
        } catch {
            // Not a DecodingError: a number out of the range of Swift's, say.
            let reason = "params: \(error)"
            self = hasID ? .rejected(id: id, .invalidParams(method, reason)) : .ignored(method: method, reason: reason)
        }
    }

    /// The document whose text this message replaces (didOpen, didChange, didClose), if any.
    var textURI: String? {
        guard case .notification(let notification) = self else { return nil }
        switch notification {
        case .didOpen(let params): return params.textDocument.uri
        case .didChange(let params): return params.textDocument.uri
        case .didClose(let params): return params.textDocument.uri
        default: return nil
        }
    }
}

extension DecodingError {
    /// Where in the message the value is, and what is wrong with it: `params.position.line: expected Int`.
    var summary: String {
        switch self {
        case .keyNotFound(let key, let context): "missing \(Self.path(context.codingPath + [key]))"
        case .typeMismatch(let type, let context): "\(Self.path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context): "\(Self.path(context.codingPath)): expected \(type), found null"
        case .dataCorrupted(let context): "\(Self.path(context.codingPath)): \(context.debugDescription)"
        @unknown default: "\(self)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var path = ""
        for key in keys {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return path.isEmpty ? "the message" : path
    }
}

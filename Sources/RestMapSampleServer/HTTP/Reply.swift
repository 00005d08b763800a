import Foundation
import Hummingbird
import RestMapPluginKit

/// What a route answers, before the body faults are applied: status, headers and the whole body.
struct Reply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields = [:]
    var body: [UInt8] = []
    /// When set, the answer carries `ETag` and `Last-Modified` and honours conditional requests.
    var lastModified: Date?

    static let jsonContentType = "application/json; charset=utf-8"

    /// A JSON answer.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Reply {
        json(bytes: value.bytes, status: status)
    }

    /// A JSON answer from bytes that already are JSON.
    static func json(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Reply {
        Reply(status: status, headers: [.contentType: jsonContentType], body: bytes)
    }

    /// An empty `204 No Content`.
    static let noContent = Reply(status: .noContent)

    /// An error with a one-member body, `{"<key>": message}`.
    static func error(_ status: HTTPResponse.Status, _ key: String, _ message: String) -> Reply {
        json(.object([key: .string(message)]), status: status)
    }

    /// The server-wide `404` for paths no API serves.
    static let notFound = error(.notFound, "message", "Not Found")

    /// The server-wide `405` for a path served with other methods.
    static let methodNotAllowed = error(.methodNotAllowed, "message", "Method Not Allowed")

    /// Returns the reply with one more header.
    func adding(_ name: HTTPField.Name, _ value: String) -> Reply {
        var copy = self
        copy.headers.append(HTTPField(name: name, value: value))
        return copy
    }
}

extension Reply: ResponseGenerator {
    /// The response; a `200` GET answer with a `lastModified` also carries `ETag` and `Last-Modified`.
    func response(from request: Request, context: some RequestContext) -> Response {
        var headers = headers
        if let lastModified, status == .ok, request.method == .get {
            headers[.eTag] = Conditional.entityTag(body)
            headers[.lastModified] = HTTPDate.string(from: lastModified)
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A reply thrown by a route's helper (a lookup that failed answers its 404 this way);
/// the route answers it as it is.
struct ReplyError: Error {
    var reply: Reply
    init(_ reply: Reply) { self.reply = reply }
}

/// One header field (HTTPTypes' `HTTPField`, reached through the `HTTPFields` Hummingbird exports).
typealias HTTPField = HTTPFields.Element

extension HTTPField.Name {
    static let link = HTTPField.Name("Link")!
    static let nextCursor = HTTPField.Name("X-Next-Cursor")!
    static let apiKey = HTTPField.Name("X-API-Key")!
    static let apiToken = HTTPField.Name("X-API-Token")!
    static let mongoHQToken = HTTPField.Name("MongoHQ-API-Token")!
}

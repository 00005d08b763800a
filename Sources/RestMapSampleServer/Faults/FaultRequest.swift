import Hummingbird

/// The faults one request asks for, from query parameters `NAME=VALUE` or headers
/// `X-Fault-NAME: VALUE` (see Docs/SampleServer.md, "Faults"). Every amount is bounded.
struct FaultRequest: Sendable {
    static let names: Set<String> = [
        "fault-id", "fail", "status", "retry-after", "retry-after-date", "delay", "redirect", "redirect-status",
        "close", "malformed", "content-type", "gzip", "gzip-bomb", "oversize", "oversize-chunked",
        "trickle", "trickle-bytes", "loop", "link-origin", "expire-token", "corrupt-encoding", "gzip-objects",
        "ignore-per-page",
    ]
    static let maximumBodyBytes = 1 << 30

    var faultID: String?
    var fail = 0
    var status = 503
    var retryAfterSeconds: Int?
    var retryAfterDateSeconds: Int?
    var delayMilliseconds = 0
    var redirect: String?
    var redirectStatus = 302
    var close = false
    var malformed = false
    var contentType: String?
    var gzip = false
    var gzipBombBytes: Int?
    var oversizeBytes: Int?
    var oversizeChunked = false
    var trickleMilliseconds: Int?
    var trickleBytes = 1
    var loop = false
    var linkOrigin: String?
    var expireToken = 0
    /// `gzip` or `deflate`: a body with that `Content-Encoding` that does not decompress.
    var corruptEncoding: String?
    /// A gzip stream of a JSON array of this many `{"id":1}` objects.
    var gzipObjects: Int?
    /// Paginated lists answer their default page size whatever `per_page` asks.
    var ignorePerPage = false

    /// No fault at all.
    static let none = FaultRequest()

    private init() {}

    /// A fault parameter with a value out of its range.
    struct Invalid: Error {
        var message: String
    }

    /// Reads the fault parameters of a request: query pairs first, then `X-Fault-` headers.
    init(query: [(name: String, value: String)], headers: HTTPFields) throws(Invalid) {
        var values: [String: String] = [:]
        for (name, value) in query where Self.names.contains(name) { values[name] = value }
        for field in headers {
            let name = field.name.canonicalName
            guard name.hasPrefix("x-fault-") else { continue }
            let fault = String(name.dropFirst("x-fault-".count))
            guard Self.names.contains(fault) else { throw Invalid(message: "unknown fault header \(field.name)") }
            values[fault] = field.value
        }
        func number(_ name: String, _ range: ClosedRange<Int>) throws(Invalid) -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw Invalid(message: "fault parameter \(name) must be an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        func flag(_ name: String) throws(Invalid) -> Bool { try number(name, 0...1) == 1 }

        faultID = values["fault-id"]
        fail = try number("fail", 0...1000) ?? 0
        status = try number("status", 100...599) ?? 503
        retryAfterSeconds = try number("retry-after", 0...3600)
        retryAfterDateSeconds = try number("retry-after-date", 0...3600)
        delayMilliseconds = try number("delay", 0...30_000) ?? 0
        redirect = values["redirect"]
        redirectStatus = try number("redirect-status", 300...399) ?? 302
        close = try flag("close")
        malformed = try flag("malformed")
        contentType = values["content-type"]
        gzip = try flag("gzip")
        gzipBombBytes = try number("gzip-bomb", 1...Self.maximumBodyBytes)
        oversizeBytes = try number("oversize", 2...Self.maximumBodyBytes)
        oversizeChunked = try flag("oversize-chunked")
        trickleMilliseconds = try number("trickle", 0...10_000)
        trickleBytes = try number("trickle-bytes", 1...65_536) ?? 1
        loop = try flag("loop")
        linkOrigin = values["link-origin"]
        expireToken = try number("expire-token", 0...1000) ?? 0
        corruptEncoding = values["corrupt-encoding"]
        if let encoding = corruptEncoding, !["gzip", "deflate"].contains(encoding) {
            throw Invalid(message: "fault parameter corrupt-encoding must be gzip or deflate")
        }
        gzipObjects = try number("gzip-objects", 1...Self.maximumBodyBytes / 9)
        ignorePerPage = try flag("ignore-per-page")
    }

    /// The key counted faults count under: `fault-id`, else the method and path.
    func key(method: HTTPRequest.Method, path: String) -> String {
        faultID.map { "id:" + $0 } ?? "path:\(method.rawValue) \(path)"
    }
}

/// Counts requests per fault key, so `fail=N` fails exactly the first N of them.
actor FaultCounter {
    private var counts: [String: Int] = [:]
    private let capacity = 10_000

    /// Counts one request of `kind` under `key`; true while the count is within `limit`.
    func shouldFault(kind: String, key: String, limit: Int) -> Bool {
        guard limit > 0 else { return false }
        if counts.count >= capacity { counts.removeAll() }
        let counted = kind + "|" + key
        let seen = counts[counted, default: 0]
        guard seen < limit else { return false }
        counts[counted] = seen + 1
        return true
    }
}

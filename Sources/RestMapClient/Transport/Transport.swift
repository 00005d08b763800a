import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// What came back from one request, redirects followed.
struct RawResponse: Sendable {
    /// The URL that answered (after redirects), without credentials.
    var url: String
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Headers as a dictionary (a repeated name keeps its values joined by ", ").
    var headerDictionary: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers { result[name] = result[name].map { $0 + ", " + value } ?? value }
        return result
    }
}

/// Why one exchange failed, and whether another attempt may help.
struct ExchangeFailure: Error {
    var reason: String
    var isRetryable: Bool
    /// A refusal (limit, unsafe redirect) rather than a transport failure.
    var isRefusal = false
}

/// One HTTP exchange over async-http-client: credentials only to their origins, redirects
/// followed by hand (at most `maxRedirects`, never https → http, credentials dropped on another
/// origin), the body streamed under the size limit and the request deadline.
struct Transport: Sendable {
    let http: HTTPClient
    let configuration: ClientConfiguration
    let logger: Logger
    let redact: Redactor

    init(configuration: ClientConfiguration, logger: Logger, redact: Redactor) {
        var settings = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .nanoseconds(Self.nanoseconds(configuration.connectTimeout)),
                           read: .nanoseconds(Self.nanoseconds(configuration.readTimeout))),
            decompression: .enabled(limit: .size(configuration.maxBodyBytes)))
        settings.httpVersion = .http1Only
        settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
        // A failed connection fails its attempt at once: the client's own retries (short backoffs,
        // `RetryPolicy`) try again, instead of the pool retrying until the connect timeout.
        settings.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        self.configuration = configuration
        self.logger = logger
        self.redact = redact
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    func shutdown() async throws {
        try await http.shutdown()
    }

    /// Sends a request, following redirects. `url` carries no credentials; they are added
    /// per hop from `credentials` when the hop's origin admits them.
    /// `followRedirects` false answers a redirect as it is.
    func exchange(method: String, url: String, headers: [String: String], body: [UInt8]?, credentials: Credentials,
                  followRedirects: Bool = true) async throws -> RawResponse {
        var current = url, method = method, body = body, headers = headers
        for _ in 0...configuration.maxRedirects {
            let response = try await once(method: method, url: current, headers: headers, body: body, credentials: credentials)
            guard followRedirects, [301, 302, 303, 307, 308].contains(response.status) else { return response }
            guard let location = response.header("Location"), !location.isEmpty else {
                throw ExchangeFailure(reason: "answered \(response.status) (a redirect) without a Location header",
                                      isRetryable: false, isRefusal: true)
            }
            guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL else {
                throw ExchangeFailure(reason: "redirect to an invalid location '\(redact(location))'", isRetryable: false, isRefusal: true)
            }
            if URL(string: current)?.scheme?.lowercased() == "https", next.scheme?.lowercased() != "https" {
                throw ExchangeFailure(reason: "refused a redirect from https to \(redact(next.absoluteString))", isRetryable: false, isRefusal: true)
            }
            if response.status == 303 || (method == "POST" && [301, 302].contains(response.status)) {
                method = "GET"
                body = nil
                headers = headers.filter { $0.key.caseInsensitiveCompare("Content-Type") != .orderedSame }
            }
            logger.debug("\(response.status) redirect to \(redact(next.absoluteString))")
            current = next.absoluteString
        }
        throw ExchangeFailure(reason: "more than \(configuration.maxRedirects) redirects", isRetryable: false, isRefusal: true)
    }

    private func once(method: String, url: String, headers: [String: String], body: [UInt8]?, credentials: Credentials)
        async throws -> RawResponse {
        guard let parsed = URL(string: url), Origin(parsed) != nil else {
            throw ExchangeFailure(reason: "not an absolute http(s) URL", isRetryable: false, isRefusal: true)
        }
        var wireURL = url
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if credentials.admits(parsed) {
            for (name, value) in credentials.headers { request.headers.replaceOrAdd(name: name, value: value) }
            wireURL = PercentEncoding.appending(credentials.query.sorted { $0.key < $1.key }, to: url)
            request.url = wireURL
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let started = ContinuousClock.now
        let deadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(configuration.requestTimeout))
        do {
            let response = try await http.execute(request, deadline: deadline, logger: nil)
            let headerBytes = response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            if headerBytes > configuration.maxHeaderBytes {
                throw ExchangeFailure(reason: "response headers of \(headerBytes) bytes exceed the limit of \(configuration.maxHeaderBytes) bytes",
                                      isRetryable: false, isRefusal: true)
            }
            let limit = configuration.maxBodyBytes
            var bytes: [UInt8] = []
            if response.headers["Content-Encoding"].isEmpty, let announced = response.headers.first(name: "Content-Length").flatMap(Int.init) {
                if announced > limit {
                    throw ExchangeFailure(reason: "the body announces \(announced) bytes, more than the limit of \(limit) bytes",
                                          isRetryable: false, isRefusal: true)
                }
                bytes.reserveCapacity(min(max(announced, 0), 16 << 20))
            }
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= limit else {
                    throw ExchangeFailure(reason: "the body exceeds the limit of \(limit) bytes", isRetryable: false, isRefusal: true)
                }
                bytes.append(contentsOf: chunk.readableBytesView)
                if NIODeadline.now() > deadline {
                    throw ExchangeFailure(reason: "timed out: the exchange took longer than \(configuration.requestTimeout)", isRetryable: false)
                }
            }
            let elapsed = ContinuousClock.now - started
            logger.debug("\(method) \(redact(wireURL)) \(response.status.code) \(bytes.count) byte\(bytes.count == 1 ? "" : "s") \(Int(elapsed.seconds * 1000)) ms")
            return RawResponse(url: url, status: Int(response.status.code),
                               headers: response.headers.map { ($0.name, $0.value) }, body: bytes)
        } catch let failure as ExchangeFailure {
            logger.debug("\(method) \(redact(wireURL)) failed: \(failure.reason)")
            throw failure
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let failure = Self.classify(error, configuration: configuration)
            logger.debug("\(method) \(redact(wireURL)) failed: \(failure.reason)")
            throw failure
        }
    }

    /// Names an async-http-client or NIO error and says whether a new attempt may help.
    static func classify(_ error: any Error, configuration: ClientConfiguration) -> ExchangeFailure {
        if let client = error as? HTTPClientError {
            switch client {
            case .readTimeout:
                return ExchangeFailure(reason: "timed out: no data for \(configuration.readTimeout) (read timeout)", isRetryable: false)
            case .deadlineExceeded:
                return ExchangeFailure(reason: "timed out: the exchange took longer than \(configuration.requestTimeout)", isRetryable: false)
            case .connectTimeout:
                return ExchangeFailure(reason: "connection timed out after \(configuration.connectTimeout)", isRetryable: true)
            case .cancelled:
                return ExchangeFailure(reason: "cancelled", isRetryable: false)
            default:
                return ExchangeFailure(reason: "connection error: \(client)", isRetryable: true)
            }
        }
        let name = String(reflecting: type(of: error))
        if name.contains("DecompressionError") {
            // NIOHTTPDecompression's `.limit`; its other errors (`inflationError`, `truncatedData`,
            // `invalidTrailingData`, …) mean the compressed body itself is broken.
            if "\(error)" == "limit" {
                return ExchangeFailure(reason: "the decompressed body exceeds the limit of \(configuration.maxBodyBytes) bytes",
                                       isRetryable: false, isRefusal: true)
            }
            return ExchangeFailure(reason: "the compressed (gzip/deflate) body is corrupt: \(error)", isRetryable: false, isRefusal: true)
        }
        if let refused = refusal(error) { return refused }
        return ExchangeFailure(reason: "connection error: \(error)", isRetryable: true)
    }

    /// A connection the peer refused (`ECONNREFUSED`): retried, named once without NIO's wording.
    private static func refusal(_ error: any Error) -> ExchangeFailure? {
        if let io = error as? IOError, io.errnoCode == ECONNREFUSED {
            return ExchangeFailure(reason: "connection refused", isRetryable: true)
        }
        if let connection = error as? NIOConnectionError,
           connection.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
            return ExchangeFailure(reason: "connection refused", isRetryable: true)
        }
        return nil
    }
}

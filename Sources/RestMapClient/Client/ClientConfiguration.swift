import Foundation
import HTTPTypes
import RestMapPluginKit
import RestMapSchema

/// How a `RestClient` talks to its service. Defaults come from the schema's `client:` section;
/// the CLI overrides some with options.
public struct ClientConfiguration: Sendable {
    /// The base URL; `nil` = the schema's `baseURL`.
    public var baseURL: String?
    public var connectTimeout: Duration = .seconds(10)
    /// Longest silence from the server while a response arrives.
    public var readTimeout: Duration = .seconds(30)
    /// Longest whole exchange (head and body) of one attempt.
    public var requestTimeout: Duration = .seconds(300)
    public var retry = RetryPolicy()
    /// Largest response body in bytes, after decompression.
    public var maxBodyBytes = 256 << 20
    /// Most JSON values a response body may hold (every object, array, member name, string,
    /// number and literal counts one), checked while parsing, before anything is mapped. It bounds
    /// the memory a body costs beyond its bytes: 16 bytes a value parsed, and the records mapped
    /// from them (a small compressed body can inflate to millions of tiny objects).
    public var maxBodyValues = 10_000_000
    /// Most pages one run fetches when neither the caller nor the schema's `maxPages` says
    /// (`StopReason.pageCap`).
    public var maxPages = 1000
    /// Largest response head (header names and values) in bytes.
    public var maxHeaderBytes = 64 << 10
    /// At most this many redirects per request.
    public var maxRedirects = 10
    /// Revalidate GET responses with ETag / Last-Modified and reuse unchanged results.
    public var cache = true
    /// Also keep validators and bodies in this folder, across runs.
    public var cacheDirectory: String?
    /// Headers added to every request after the schema's.
    public var headers: HTTPFields = [:]
    /// Other origins that receive credentials and may be paged into (`scheme://host[:port]`).
    public var trustedOrigins: [String] = []
    /// Where secrets named by `env:` are read.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The folder relative secret files and the OAuth 2.0 token store are found in (the schema's folder).
    public var secretsDirectory: String?
    /// Where the latest OAuth 2.0 refresh token is kept and refreshed under a lock, in place of the
    /// schema's `tokenStore` file (see `RefreshTokenKeeper`).
    public var refreshTokenKeeper: (any RefreshTokenKeeper)?
    /// A budget every request of the client shares (`client: { rateLimit: … }`); `nil` = none.
    public var requestBudget: RequestBudget?
    /// Hold requests while the server says its rate limit is used up (`X-RateLimit-Remaining`,
    /// `RateLimit`), until its reset. Default true.
    public var honoursServerRateLimits = true

    public init() {}

    /// The defaults of a schema's `client:` section.
    public init(schema: Schema) {
        let settings = schema.client
        if let seconds = settings.connectTimeout { connectTimeout = .seconds(seconds) }
        if let seconds = settings.readTimeout { readTimeout = .seconds(seconds) }
        if let seconds = settings.requestTimeout { requestTimeout = .seconds(seconds) }
        if let attempts = settings.retryAttempts { retry.attempts = attempts }
        if let delay = settings.retryDelayMilliseconds { retry.initialDelay = .milliseconds(delay) }
        if let seconds = settings.retryMaxSeconds { retry.maxTotal = .seconds(seconds) }
        retry.allMethods = settings.retryAllMethods
        if let bytes = settings.maxBodyBytes { maxBodyBytes = bytes }
        if let bytes = settings.maxHeaderBytes { maxHeaderBytes = bytes }
        cache = settings.cache
        trustedOrigins = settings.trustedOrigins.map(\.value)
        if let limit = settings.rateLimit {
            requestBudget = RequestBudget(requests: limit.requests, per: .seconds(limit.per), burst: limit.burst)
        }
        secretsDirectory = URL(fileURLWithPath: schema.file).deletingLastPathComponent().path
    }
}

/// When and how often a request is tried again.
public struct RetryPolicy: Sendable {
    /// Attempts per request, the first included.
    public var attempts = 4
    /// The first backoff delay; doubled per attempt, with jitter.
    public var initialDelay: Duration = .milliseconds(250)
    /// The longest single wait.
    public var maxDelay: Duration = .seconds(30)
    /// The longest time all attempts of one request may take together.
    public var maxTotal: Duration = .seconds(60)
    /// Retry POST and PATCH too (they are not idempotent).
    public var allMethods = false
    /// Statuses worth another attempt.
    public static let retryableStatuses: Set<HTTPResponse.Status> = [.tooManyRequests, .badGateway, .serviceUnavailable, .gatewayTimeout]

    public init() {}

    /// Whether a method may be retried.
    public func allows(method: HTTPRequest.Method) -> Bool {
        allMethods || [.get, .head, .put, .delete, .options].contains(method)
    }

    /// The backoff before attempt `number + 1` (attempt numbers start at 1), with jitter of up to half.
    public func backoff(after number: Int) -> Duration {
        let doubled = initialDelay * (1 << min(number - 1, 20))
        let capped = min(doubled, maxDelay)
        return capped * Double.random(in: 0.5...1.0)
    }

    /// The delay a `Retry-After` value asks for: seconds or an HTTP date (any of the three forms,
    /// read leniently: `HTTPDate.Syntax.lenient`).
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return .seconds(max(0, seconds)) }
        guard let date = HTTPDate.date(from: text, syntax: .lenient) else { return nil }
        return .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}

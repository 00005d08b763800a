import Foundation
import HTTPTypes
import Logging
import RestMap
import RestMapSchema
import Synchronization

/// A mapped response of a client call.
public struct ClientResponse: Sendable {
    /// The request URL, without credentials.
    public var url: String
    /// The URL that answered, after redirects.
    public var finalURL: String
    /// The request method.
    public var method: HTTPRequest.Method
    /// The status answered (304 when an earlier mapped result was reused).
    public var status: HTTPResponse.Status
    /// The response header fields, in the order received (a 304's own fields first when it
    /// revalidated a cached 200).
    public var headers: HTTPFields
    /// Bytes of the body received (0 when a 304 reused an earlier result).
    public var bodyBytes: Int
    /// The records, mapped by the schema's response descriptors.
    public var result: MappingResult
    /// Values read from the body at the key paths the call asked for (pagination fields).
    public var values: [Value?]
    /// `true` when the server answered 304 and the earlier mapped result was reused without
    /// parsing or mapping.
    public var reusedCachedResult: Bool
    /// Every attempt of the request.
    public var attempts: [Attempt]
}

/// What a client did so far: requests sent, responses mapped, results reused.
public struct ClientStatistics: Sendable, Hashable {
    /// HTTP exchanges, retries and logins included.
    public var requests = 0
    /// Responses parsed and mapped.
    public var mappings = 0
    /// 304 answers whose earlier mapped result was reused.
    public var reusedResults = 0
    /// Requests that waited for the request budget or for the server's rate limit to reset.
    public var rateLimitWaits = 0
    /// Seconds those requests waited, together.
    public var rateLimitWaitSeconds = 0.0
    /// Requests to the OAuth 2.0 token endpoint (each obtained or refreshed a token).
    public var tokenRequests = 0
}

/// A request sent and answered but not mapped yet (see `RestClient.receive`).
struct Exchange: Sendable {
    var method: String
    /// The request URL, without credentials.
    var url: String
    var parameters: [String: String]
    /// The request headers without the validators (they reach `@metadata`).
    var requestHeaders: [String: String]
    /// The cache entry the request was revalidated against.
    var cached: ResponseCache.Entry?
    var raw: RawResponse
    var attempts: [Attempt]
}

/// A REST client driven by a schema: it builds requests from routes and records, authenticates,
/// retries, revalidates, and maps every response with the same `Mapper`.
///
/// `Sendable`: share one client between tasks. Call `shutdown()` when done with it.
public struct RestClient: Sendable {
    public let mapper: Mapper
    /// The base URL, without a trailing slash.
    public let baseURL: String
    public let configuration: ClientConfiguration
    let transport: Transport
    let credentials: Credentials
    let session: SessionTokens?
    let oauth2: OAuth2Session?
    let rateGate: RateGate
    let cache: ResponseCache?
    let counters = Counters()
    let logger: Logger
    let mappingLogger: Logger
    let redact: Redactor

    /// A client for a mapper's schema. The base URL is `configuration.baseURL`, else the schema's.
    public init(mapper: Mapper, configuration: ClientConfiguration? = nil) throws(ClientError) {
        let configuration = configuration ?? ClientConfiguration(schema: mapper.schema)
        guard let base = configuration.baseURL ?? mapper.schema.baseURL, let baseOrigin = Origin(base) else {
            throw .invalidRequest("no base URL: the schema has no baseURL and none was given (--base-url)")
        }
        self.mapper = mapper
        self.configuration = configuration
        baseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        var origins: Set<Origin> = [baseOrigin]
        for text in configuration.trustedOrigins {
            guard let origin = Origin(text) else { throw .invalidRequest("'\(text)' is not a trusted origin (scheme://host[:port])") }
            origins.insert(origin)
        }
        credentials = try Credentials(auth: mapper.schema.auth, origins: origins, configuration: configuration)
        var secrets = credentials.secrets
        if case .session(let login)? = mapper.schema.auth {
            for secret in login.credentials.values { secrets.append(try Credentials.read(secret, configuration)) }
            session = SessionTokens(login: login)
        } else {
            session = nil
        }
        if case .oauth2(let settings)? = mapper.schema.auth {
            let session = try OAuth2Session(settings: settings, baseURL: baseURL, configuration: configuration)
            secrets += session.secrets
            oauth2 = session
        } else {
            oauth2 = nil
        }
        rateGate = RateGate(budget: configuration.requestBudget, honoursServer: configuration.honoursServerRateLimits)
        // Credentials given as plain headers (`--header "Authorization: …"`) are secrets too.
        for field in configuration.headers where Redactor.isCredentialHeader(field.name.canonicalName) {
            let value = field.value
            secrets.append(value)
            if let token = value.split(separator: " ", maxSplits: 1).dropFirst().first { secrets.append(String(token)) }
        }
        redact = Redactor(secrets)
        logger = Logger(label: "restmap.client")
        mappingLogger = Logger(label: "restmap.mapping")
        cache = configuration.cache ? ResponseCache(directory: configuration.cacheDirectory) : nil
        transport = Transport(configuration: configuration, logger: logger, redact: redact)
    }

    /// Closes the connections. Call it once, when no call is running.
    public func shutdown() async {
        try? await transport.shutdown()
    }

    /// Runs `body` with a client and shuts it down afterwards.
    public static func with<Result: Sendable>(
        mapper: Mapper, configuration: ClientConfiguration? = nil,
        _ body: (RestClient) async throws -> Result
    ) async throws -> Result {
        let client = try RestClient(mapper: mapper, configuration: configuration)
        do {
            let result = try await body(client)
            await client.shutdown()
            return result
        } catch {
            await client.shutdown()
            throw error
        }
    }

    /// What the client did so far.
    public var statistics: ClientStatistics { counters.value.withLock { $0 } }

    // MARK: Requests

    /// GETs (or calls with its method) a named route with its path parameters.
    public func get(route name: String, parameters: [String: String] = [:], query: [String: String] = [:],
                    headers: HTTPFields = [:]) async throws(ClientError) -> ClientResponse {
        let route = try resolve { () throws(RoutingError) in try mapper.router.route(named: name, parameters: parameters) }
        return try await request(method: route.method, url: url(for: route.path, query: query), parameters: parameters,
                                 headers: headers.dictionary)
    }

    /// GETs a path relative to the base URL (a query string is allowed), or an absolute URL.
    public func get(path: String, query: [String: String] = [:], headers: HTTPFields = [:]) async throws(ClientError) -> ClientResponse {
        try await request(method: "GET", url: url(for: path, query: query), parameters: [:], headers: headers.dictionary)
    }

    /// GETs the route of a record's relationship (`GET /users/:login/starred`).
    public func get(relationship name: String, of record: Record, parameters: [String: String] = [:]) async throws(ClientError) -> ClientResponse {
        let route = try resolve { () throws(RoutingError) in try mapper.router.route(forRelationship: name, of: record, parameters: parameters) }
        return try await request(method: route.method, url: url(for: route.path, query: [:]), parameters: parameters, headers: [:])
    }

    /// Sends a record to its entity route for `method` (POST, PUT, PATCH, DELETE), the body
    /// serialized by the request descriptor (none for DELETE), and maps the answer.
    public func send(_ record: Record, method: HTTPRequest.Method, parameters: [String: String] = [:]) async throws(ClientError) -> ClientResponse {
        let route = try resolve { () throws(RoutingError) in try mapper.router.route(for: record, method: method.rawValue, parameters: parameters) }
        return try await send(record, method: method, path: route.path, parameters: parameters)
    }

    /// Sends a record to a named route; parameters come from `parameters`, then from the record.
    public func send(_ record: Record, method: HTTPRequest.Method, route name: String, parameters: [String: String] = [:]) async throws(ClientError) -> ClientResponse {
        let (route, used) = try resolve { () throws(RoutingError) in try mapper.router.route(named: name, parameters: parameters, record: record) }
        return try await send(record, method: method, path: route.path, parameters: used)
    }

    /// Sends a record to a path (relative to the base URL) with `method`.
    public func send(_ record: Record, method: HTTPRequest.Method, path: String, parameters: [String: String] = [:]) async throws(ClientError) -> ClientResponse {
        var body: RequestBody?
        if method != .delete {
            do { body = try mapper.requestBody(for: record, method: method.rawValue) } catch {
                throw .invalidRequest("cannot serialize the \(record.entity) record: \(error)")
            }
        }
        return try await request(method: method.rawValue, url: url(for: path, query: [:]), parameters: parameters, headers: [:], body: body)
    }

    /// Sends a request without a record and without a body (`DELETE /tasks/42`) to a named route,
    /// its parameters from `parameters`, and maps the answer.
    public func send(method: HTTPRequest.Method, route name: String, parameters: [String: String] = [:]) async throws(ClientError) -> ClientResponse {
        let route = try resolve { () throws(RoutingError) in try mapper.router.route(named: name, parameters: parameters) }
        return try await send(method: method, path: route.path, parameters: parameters)
    }

    /// Sends a request without a record and without a body to a path (relative to the base URL).
    public func send(method: HTTPRequest.Method, path: String, parameters: [String: String] = [:]) async throws(ClientError) -> ClientResponse {
        try await request(method: method.rawValue, url: url(for: path, query: [:]), parameters: parameters, headers: [:])
    }

    /// The absolute URL of a path relative to the base URL (an absolute URL stays as it is).
    public func url(for path: String, query: [String: String] = [:]) -> String {
        let absolute = path.hasPrefix("http://") || path.hasPrefix("https://") ? path
            : baseURL + (path.hasPrefix("/") || path.hasPrefix("?") ? "" : "/") + path
        return PercentEncoding.appending(query.sorted { $0.key < $1.key }, to: absolute)
    }

    private func resolve<Resolved>(_ body: () throws(RoutingError) -> Resolved) throws(ClientError) -> Resolved {
        do { return try body() } catch { throw .invalidRequest(error.description) }
    }

    // MARK: The exchange

    /// Sends one request (with retries, session login and revalidation) and maps the response.
    /// `extracting` names key paths read from the same body (pagination fields).
    func request(method: String, url: String, parameters: [String: String], headers: [String: String],
                 body: RequestBody? = nil, extracting keyPaths: [MappingKeyPath] = []) async throws(ClientError) -> ClientResponse {
        try await map(receive(method: method, url: url, parameters: parameters, headers: headers, body: body), extracting: keyPaths)
    }

    /// Sends one request (with retries, session login and revalidation) without mapping the
    /// answer yet: a pager reads the next page's URL from its headers while it maps it.
    func receive(method: String, url: String, parameters: [String: String], headers: [String: String],
                 body: RequestBody? = nil) async throws(ClientError) -> Exchange {
        // Header names compare without case: a later source replaces `accept` as well as `Accept`.
        var requestHeaders = HTTPHeaders.setting(configuration.headers.dictionary, over: mapper.schema.headers)
        if HTTPHeaders.value(of: "Accept", in: requestHeaders) == nil {
            requestHeaders["Accept"] = "application/json, */*;q=0.5"
        }
        requestHeaders = HTTPHeaders.setting(["Accept-Encoding": "gzip, deflate", "User-Agent": "restmap"], over: requestHeaders)
        requestHeaders = HTTPHeaders.setting(headers, over: requestHeaders)
        if let body { requestHeaders = HTTPHeaders.setting(["Content-Type": body.contentType], over: requestHeaders) }
        let cached = method == "GET" ? await cache?.entry(for: url) : nil
        var wireHeaders = requestHeaders
        if let etag = cached?.etag { wireHeaders["If-None-Match"] = etag }
        if let lastModified = cached?.lastModified { wireHeaders["If-Modified-Since"] = lastModified }
        let (raw, attempts) = try await exchangeAuthenticated(method: method, url: url, headers: wireHeaders, body: body?.bytes)
        return Exchange(method: method, url: url, parameters: parameters, requestHeaders: requestHeaders, cached: cached,
                        raw: raw, attempts: attempts)
    }

    /// Maps the answer of an exchange (a 304 reuses the earlier mapped result or body).
    func map(_ exchange: Exchange, extracting keyPaths: [MappingKeyPath]) async throws(ClientError) -> ClientResponse {
        let (method, url, attempts) = (exchange.method, exchange.url, exchange.attempts)
        var raw = exchange.raw
        if raw.status == 304, let cached = exchange.cached {
            let keyPathTexts = keyPaths.map(\.text)
            if let mapped = cached.mapped, mapped.keyPaths == keyPathTexts {
                counters.value.withLock { $0.reusedResults += 1 }
                logger.debug("\(redact(url)) not modified: reusing the mapped result")
                return ClientResponse(url: redact(url), finalURL: redact(raw.url), method: HTTPRequest.Method(method) ?? .get,
                                      status: .notModified, headers: HTTPFields(raw.headers),
                                      bodyBytes: 0, result: mapped.result, values: mapped.values, reusedCachedResult: true, attempts: attempts)
            }
            raw = RawResponse(url: raw.url, status: 200, headers: cached.headers.map { ($0.key, $0.value) } + raw.headers, body: cached.body)
        }
        // A 3xx that reaches here was not followed: it carries no result, and mapping its (empty)
        // body would pass for an empty page.
        if (300..<400).contains(raw.status) {
            throw .refused(url: redact(url), reason: raw.status == 304
                ? "answered 304 Not Modified to a request that was not conditional"
                : "answered \(raw.status), a redirect status the client does not follow")
        }
        let headers = raw.headerDictionary
        // The URLs and headers reach `@metadata.HTTP` and so possibly the output: without secrets.
        let withURL = Response(method: method, path: url, status: raw.status, headers: headers, body: raw.body,
                               parameters: exchange.parameters,
                               requestHeaders: exchange.requestHeaders.filter { !Redactor.isCredentialHeader($0.key) },
                               requestURL: redact(url), responseURL: redact(raw.url))
        let mapped: (result: MappingResult, values: [Value?])
        let mapper = mapper
        let options = MappingOptions(maximumValueCount: configuration.maxBodyValues)
        do {
            mapped = try await Self.offEventLoops { Result { () throws(MappingFailure) in try mapper.map(withURL, options: options, extracting: keyPaths) } }.get()
        } catch {
            throw failure(error, status: raw.status, url: redact(url), attempts: attempts)
        }
        counters.value.withLock { $0.mappings += 1 }
        let count = mapped.result.records.count
        mappingLogger.debug("\(redact(url)): \(count) record\(count == 1 ? "" : "s"), \(mapped.result.errors.count) failed")
        for error in mapped.result.errors { mappingLogger.info("\(redact(url)): record failed: \(error)") }
        if let cache, method == "GET", raw.status == 200 {
            let etag = raw.header("ETag"), lastModified = raw.header("Last-Modified")
            if etag != nil || lastModified != nil {
                await cache.store(ResponseCache.Entry(etag: etag, lastModified: lastModified, headers: headers, body: raw.body,
                                                      mapped: (mapped.result, mapped.values, keyPaths.map(\.text))), for: url)
            }
        }
        return ClientResponse(url: redact(url), finalURL: redact(raw.url), method: HTTPRequest.Method(method) ?? .get,
                              status: HTTPResponse.Status(code: raw.status), headers: HTTPFields(raw.headers),
                              bodyBytes: raw.body.count, result: mapped.result, values: mapped.values, reusedCachedResult: false,
                              attempts: attempts)
    }

    func failure(_ failure: MappingFailure, status: Int, url: String, attempts: [Attempt]) -> ClientError {
        switch failure {
        case .malformedBody(let error) where error.exceedsValueCount:
            .refused(url: url, reason: "the body holds more than \(configuration.maxBodyValues) JSON values, the limit (--max-values)")
        case .errorResponse(let status, _, let messages): .errorResponse(status: HTTPResponse.Status(code: status), url: url, messages: messages, attempts: attempts)
        case .unprocessableErrorResponse(let status, _): .errorResponse(status: HTTPResponse.Status(code: status), url: url, messages: [], attempts: attempts)
        default: .unmappable(status: HTTPResponse.Status(code: status), url: url, failure: failure)
        }
    }

    /// The exchange with the session token, logging in first and once more on a 401.
    func exchangeAuthenticated(method: String, url: String, headers: [String: String], body: [UInt8]?)
        async throws(ClientError) -> (RawResponse, [Attempt]) {
        if let oauth2 { return try await exchangeOAuth2(oauth2, method: method, url: url, headers: headers, body: body) }
        guard let session else { return try await exchange(method: method, url: url, headers: headers, body: body, credentials: credentials) }
        var tokenCredentials = credentials
        let token = try await session.token { () async throws(ClientError) in try await login(session.login) }
        tokenCredentials.headers[session.login.header] = session.login.prefix + token
        let first = try await exchange(method: method, url: url, headers: headers, body: body, credentials: tokenCredentials)
        guard first.0.status == 401 else { return first }
        logger.info("\(redact(url)) answered 401: logging in again")
        await session.invalidate(token)
        let renewed = try await session.token { () async throws(ClientError) in try await login(session.login) }
        tokenCredentials.headers[session.login.header] = session.login.prefix + renewed
        let second = try await exchange(method: method, url: url, headers: headers, body: body, credentials: tokenCredentials)
        return (second.0, first.1 + second.1)
    }

    /// Posts the login credentials and reads the token from the answer.
    func login(_ login: SessionLogin) async throws(ClientError) -> String {
        let route = try resolve { () throws(RoutingError) in try mapper.router.route(named: login.route) }
        let url = url(for: route.path)
        var fields: [Value.Member] = []
        for (name, secret) in login.credentials.sorted(by: { $0.key < $1.key }) {
            fields.append(Value.Member(key: name, value: .string(try Credentials.read(secret, configuration))))
        }
        let body = LoginBody.encode(.object(fields), format: login.format)
        let (raw, attempts) = try await exchange(
            method: route.method, url: url, headers: ["Content-Type": body.contentType, "Accept": "application/json"],
            body: route.method == "GET" ? nil : body.bytes, credentials: credentials)
        let response = Response(method: route.method, path: url, status: raw.status, headers: raw.headerDictionary, body: raw.body)
        guard (200..<300).contains(raw.status) else {
            if case .errorResponse(let status, _, let messages)? = Self.mappingError(mapper, response) {
                throw .errorResponse(status: HTTPResponse.Status(code: status), url: url, messages: messages, attempts: attempts)
            }
            throw .errorResponse(status: HTTPResponse.Status(code: raw.status), url: url, messages: [], attempts: attempts)
        }
        let token: Value?
        do { token = try mapper.values(at: [login.token], in: response).first ?? nil } catch {
            throw .unmappable(status: HTTPResponse.Status(code: raw.status), url: url, failure: error)
        }
        guard let token, case .string(let text) = token, !text.isEmpty else {
            throw .invalidRequest("the login response of \(url) has no token at '\(login.token.text)'")
        }
        logger.debug("logged in at \(url)")
        return text
    }

    private static func mappingError(_ mapper: Mapper, _ response: Response) -> MappingFailure? {
        do { _ = try mapper.map(response) } catch { return error }
        return nil
    }

    /// One request with retries: connection errors and 429/502/503/504 for the methods the
    /// policy allows, backing off (or waiting as `Retry-After` says) within the total time.
    /// `budgeted`: the request takes its place in the rate budget and its answer's rate-limit
    /// headers are heeded (not so for the token endpoint, another service). `followRedirects`:
    /// false answers a 3xx as it is.
    func exchange(method: String, url: String, headers: [String: String], body: [UInt8]?, credentials: Credentials,
                  budgeted: Bool = true, followRedirects: Bool = true)
        async throws(ClientError) -> (RawResponse, [Attempt]) {
        let policy = configuration.retry
        let mayRetry = HTTPRequest.Method(method).map(policy.allows) ?? false
        let started = ContinuousClock.now
        var attempts: [Attempt] = []
        while true {
            if Task.isCancelled { throw .cancelled(url: redact(url)) }
            if budgeted { try await waitForBudget(url: url) }
            counters.value.withLock { $0.requests += 1 }
            let outcome: Result<RawResponse, ExchangeFailure>
            do {
                let raw = try await transport.exchange(method: method, url: url, headers: headers, body: body, credentials: credentials,
                                                       followRedirects: followRedirects)
                if budgeted, rateGate.honoursServer, let signal = ServerRateLimit.parse(raw.headers) { await rateGate.observe(signal) }
                outcome = .success(raw)
            } catch let failure as ExchangeFailure {
                outcome = .failure(failure)
            } catch {
                throw .cancelled(url: redact(url))
            }
            var attempt = Attempt(status: (try? outcome.get().status).map { HTTPResponse.Status(code: $0) }, failure: nil, waitedSeconds: nil)
            var wait: Duration
            switch outcome {
            case .success(let raw):
                guard RetryPolicy.retryableStatuses.contains(HTTPResponse.Status(code: raw.status)), mayRetry else {
                    attempts.append(attempt)
                    return (raw, attempts)
                }
                wait = raw.header("Retry-After").flatMap { RetryPolicy.retryAfter($0) } ?? policy.backoff(after: attempts.count + 1)
            case .failure(let failure):
                attempt.failure = failure.reason
                if failure.isRefusal {
                    attempts.append(attempt)
                    throw .refused(url: redact(url), reason: failure.reason)
                }
                wait = policy.backoff(after: attempts.count + 1)
                guard failure.isRetryable, mayRetry else {
                    attempts.append(attempt)
                    throw .transport(url: redact(url), reason: failure.reason, attempts: attempts)
                }
            }
            let elapsed = ContinuousClock.now - started
            let exhausted = attempts.count + 1 >= policy.attempts || elapsed + wait > policy.maxTotal
            if exhausted {
                attempts.append(attempt)
                if case .success(let raw) = outcome { return (raw, attempts) }
                throw .transport(url: redact(url), reason: attempt.failure ?? "failed", attempts: attempts)
            }
            attempt.waitedSeconds = wait.seconds
            attempts.append(attempt)
            logger.notice("\(redact(url)): \(attempt.status.map { "status \($0.code)" } ?? attempt.failure ?? ""); retrying in \(String(format: "%.2f", wait.seconds)) s")
            do { try await Task.sleep(for: wait) } catch { throw .cancelled(url: redact(url)) }
        }
    }
}

extension RestClient {
    /// Waits as the request budget and the server's rate limit say, logging why (notice level).
    func waitForBudget(url: String) async throws(ClientError) {
        guard rateGate.isActive, let (wait, reason) = await rateGate.reserve() else { return }
        counters.value.withLock {
            $0.rateLimitWaits += 1
            $0.rateLimitWaitSeconds += wait.seconds
        }
        logger.notice("\(redact(url)): waiting \(String(format: "%.2f", wait.seconds)) s: \(reason)")
        do { try await Task.sleep(for: wait) } catch { throw .cancelled(url: redact(url)) }
    }
}

/// The statistics of a client, shared by its copies.
final class Counters: Sendable {
    let value = Mutex(ClientStatistics())
}

/// The session token, obtained once and shared by concurrent requests.
actor SessionTokens {
    let login: SessionLogin
    private var current: Task<String, any Error>?

    init(login: SessionLogin) {
        self.login = login
    }

    func token(_ obtain: @escaping @Sendable () async throws(ClientError) -> String) async throws(ClientError) -> String {
        let task = current ?? Task { try await obtain() }
        current = task
        do { return try await task.value } catch {
            current = nil
            throw error as? ClientError ?? .invalidRequest("login failed: \(error)")
        }
    }

    /// Forgets a token the server refused (unless another request already renewed it).
    func invalidate(_ token: String) async {
        if let current, (try? await current.value) == token { self.current = nil }
    }
}

/// The body of a login request.
enum LoginBody {
    static func encode(_ value: Value, format: RequestFormat) -> (contentType: String, bytes: [UInt8]) {
        switch format {
        case .json:
            return ("application/json", Array(JSONText.string(from: value).utf8))
        case .form:
            guard case .object(let members) = value else { return ("application/x-www-form-urlencoded", []) }
            let text = members.map { PathPattern.escape($0.key) + "=" + PathPattern.escape($0.value.stringValue ?? "") }
                .joined(separator: "&")
            return ("application/x-www-form-urlencoded", Array(text.utf8))
        }
    }
}


/// The former name of `RestClient`, which was also the module's name and so broke qualified names.
@available(*, deprecated, renamed: "RestClient")
public typealias RestMapClient = RestClient

import FoundationEssentials

/// An HTTP response to map, with what is known of the request that produced it.
public struct Response: Sendable {
    /// The request method.
    public var method: String
    /// The request path (`/users/octocat/starred?page=2`) or full URL; it is taken relative to
    /// the schema's `baseURL`.
    public var path: String
    public var status: Int
    /// Response headers; `Content-Type` picks a body decoder for non-JSON bodies.
    public var headers: [String: String]
    public var body: [UInt8]
    /// Path parameters that built the request (`@metadata.routing.parameters.*`); parameters the
    /// response path matches are added.
    public var parameters: [String: String]
    public var requestHeaders: [String: String]
    /// Embedder-defined metadata, under `@metadata.user.*`.
    public var userMetadata: Value
    /// The full URL of the request (`@metadata.HTTP.request.URL`), as a client sent it; `nil`:
    /// built from the schema's `baseURL` and `path`.
    public var requestURL: String?
    /// The full URL that answered (`@metadata.HTTP.response.URL`), which differs from the
    /// request's after a redirect; `nil`: the request URL. Response descriptors match it (as
    /// RestKit matches the response's URL) when it is given, `path` otherwise.
    public var responseURL: String?

    public init(
        method: String = "GET", path: String, status: Int = 200, headers: [String: String] = [:],
        body: [UInt8], parameters: [String: String] = [:], requestHeaders: [String: String] = [:],
        userMetadata: Value = .object([]), requestURL: String? = nil, responseURL: String? = nil
    ) {
        self.method = method.uppercased()
        self.path = path
        self.status = status
        self.headers = headers
        self.body = body
        self.parameters = parameters
        self.requestHeaders = requestHeaders
        self.userMetadata = userMetadata
        self.requestURL = requestURL
        self.responseURL = responseURL
    }

    /// A response with a UTF-8 body.
    public init(method: String = "GET", path: String, status: Int = 200, headers: [String: String] = [:], body: String,
                parameters: [String: String] = [:]) {
        self.init(method: method, path: path, status: status, headers: headers, body: Array(body.utf8), parameters: parameters)
    }

    /// The header value for a case-insensitive name.
    public func header(_ name: String) -> String? {
        HTTPHeaders.value(of: name, in: headers)
    }

    /// The query parameters of `path`, percent-decoded.
    var queryParameters: [String: String] {
        guard let query = path.firstIndex(of: "?").map({ path[path.index(after: $0)...] }) else { return [:] }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                String(text).replacing("+", with: " ").removingPercentEncodingIfValid
            }
            parameters[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return parameters
    }
}

/// Options of one mapping.
public struct MappingOptions: Sendable {
    /// Fail the whole mapping when any record fails (instead of reporting it and going on).
    public var strict: Bool
    /// Threads that map a large body (1 MB or more) that is one array of a descriptor's
    /// representations. The result is the same with any number: records, their order, identity
    /// merges and errors (see Docs/Pipelines.md for which schemas split).
    public var jobs: Int
    /// Most JSON values a body may hold (`JSONParsingOptions.maximumValueCount`): a larger body
    /// fails with `MappingFailure.malformedBody` whose error has `exceedsValueCount` set, before
    /// anything is mapped. A body under a limit is mapped on one thread. Default: no limit.
    public var maximumValueCount: Int
    /// Where CPU time goes, per stage and thread (`nil`: not measured; see `StageProfile`).
    public var profile: StageProfile?

    public init(strict: Bool = false, jobs: Int = 1, maximumValueCount: Int = .max, profile: StageProfile? = nil) {
        self.strict = strict
        self.jobs = max(jobs, 1)
        self.maximumValueCount = max(maximumValueCount, 1)
        self.profile = profile
    }
}

/// HTTP header fields as a dictionary, whose names compare without case (RFC 9110).
package enum HTTPHeaders {
    /// The value of the header `name`, in any case.
    package static func value(of name: String, in headers: [String: String]) -> String? {
        headers.first { $0.key.equalsIgnoringCase(name) }?.value
    }

    /// `base` with each of `given` set: a given name replaces the base's header of that name in any case.
    package static func setting(_ given: [String: String], over base: [String: String]) -> [String: String] {
        var merged = base
        for (name, value) in given {
            for existing in merged.keys where existing.equalsIgnoringCase(name) {
                merged.removeValue(forKey: existing)
            }
            merged[name] = value
        }
        return merged
    }
}

/// Where a secret comes from. The value itself is read by the client, never by the validator,
/// and is never printed.
public enum Secret: Sendable, Hashable {
    /// An environment variable's name.
    case environment(String)
    /// A file path (relative paths are relative to the schema's folder); surrounding whitespace is dropped.
    case file(String)
    /// The value written in the schema itself.
    case inline(String)
}

/// How requests authenticate (`auth:`, Docs/Client.md).
public enum Authentication: Sendable, Hashable {
    /// `Authorization: Bearer <token>`.
    case bearer(Secret)
    /// `Authorization: Basic base64(user:password)`.
    case basic(username: Secret, password: Secret)
    /// An API key sent as a header or a query parameter.
    case apiKey(name: String, placement: APIKeyPlacement, value: Secret)
    /// A session token from a login route, sent in a header on later requests.
    case session(SessionLogin)
    /// An OAuth 2.0 access token from a token endpoint (RFC 6749), sent as a bearer token.
    case oauth2(OAuth2Settings)
}

/// The OAuth 2.0 grant that obtains access tokens.
public enum OAuth2Grant: String, Sendable, Hashable, CaseIterable {
    /// RFC 6749 §4.4: the client's own credentials.
    case clientCredentials
    /// RFC 6749 §6: a refresh token, possibly rotated by each answer.
    case refreshToken
}

/// How the client authenticates itself to the token endpoint (RFC 6749 §2.3.1).
public enum OAuth2ClientAuthentication: String, Sendable, Hashable, CaseIterable {
    /// `Authorization: Basic` with the form-encoded client id and secret.
    case basic
    /// `client_id` and `client_secret` in the form body.
    case post
}

/// `auth: { oauth2: … }`: where and how access tokens are obtained.
public struct OAuth2Settings: Sendable, Hashable {
    /// The token endpoint: an absolute http(s) URL, or a path relative to the base URL.
    public var tokenURL: String
    public var grant: OAuth2Grant
    public var clientID: Secret
    /// The client secret; `nil` for a public client.
    public var clientSecret: Secret?
    public var clientAuthentication: OAuth2ClientAuthentication
    /// Scopes asked for (`scope`, space-separated); empty: none asked.
    public var scopes: [String]
    /// The initial refresh token (grant `refreshToken`); a token in `tokenStore` takes precedence.
    public var refreshToken: Secret?
    /// File that keeps the latest refresh token across runs: a relative path inside the schema's folder.
    public var tokenStore: String?

    public init(tokenURL: String, grant: OAuth2Grant, clientID: Secret, clientSecret: Secret? = nil,
                clientAuthentication: OAuth2ClientAuthentication = .basic, scopes: [String] = [],
                refreshToken: Secret? = nil, tokenStore: String? = nil) {
        self.tokenURL = tokenURL
        self.grant = grant
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientAuthentication = clientAuthentication
        self.scopes = scopes
        self.refreshToken = refreshToken
        self.tokenStore = tokenStore
    }
}

/// Where an API key goes.
public enum APIKeyPlacement: String, Sendable, Hashable {
    case header, query
}

/// A login route that answers a session token (RSAPI's `api_token`).
public struct SessionLogin: Sendable, Hashable {
    /// The named route of the login request.
    public var route: String
    /// Body fields of the login request: name → secret.
    public var credentials: [String: Secret]
    /// Where the token sits in the login response.
    public var token: MappingKeyPath
    /// The header that carries the token on later requests (default `Authorization`).
    public var header: String
    /// Text before the token in that header (default `Bearer `).
    public var prefix: String
    /// Encoding of the login body.
    public var format: RequestFormat
}

/// The pagination style of a collection.
public enum PaginationKind: String, Sendable, Hashable, CaseIterable {
    case page, offset, cursor, link
}

/// How pages of a collection are fetched (`pagination:` of the schema or of a route).
public struct Pagination: Sendable, Hashable {
    public var kind: PaginationKind
    public var location: SourceLocation
    /// Path pattern of a page (`:currentPage`, `:perPage`, `:offset`, `:cursor` and route parameters).
    public var path: PathPattern?
    /// Query parameters added to the request: name → template with the same placeholders.
    /// `nil` = the defaults of the kind (Docs/Client.md).
    public var query: [QueryParameter]?
    /// Page size to ask for (`:perPage`).
    public var pageSize: Int?
    /// Number of the first page (kind `page`, default 1).
    public var firstPage: Int
    public var perPage: MappingKeyPath?
    public var currentPage: MappingKeyPath?
    public var pageCount: MappingKeyPath?
    public var objectCount: MappingKeyPath?
    /// Key path of the next cursor (kind `cursor`).
    public var cursor: MappingKeyPath?
    /// Header of the next cursor (kind `cursor`).
    public var cursorHeader: String?
    /// Key path of the next page's URL in the body (kind `link`, besides the `Link` header).
    public var next: MappingKeyPath?
    /// Stop after this many pages.
    public var maxPages: Int?
}

/// One query parameter a page request adds: `page: ":currentPage"`.
public struct QueryParameter: Sendable, Hashable {
    public var name: String
    /// Text with `:currentPage`, `:perPage`, `:offset` or `:cursor` placeholders.
    public var template: String

    public init(name: String, template: String) {
        self.name = name
        self.template = template
    }

    /// The `:name` placeholders of the template, longest first (so replacing them in this
    /// order never cuts a longer name).
    public var placeholders: [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let colon = rest.firstIndex(of: ":") {
            let after = rest[rest.index(after: colon)...]
            let name = after.prefix { $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }
            if !name.isEmpty { names.append(String(name)) }
            rest = after.dropFirst(name.count)
        }
        return names.sorted { $0.count > $1.count }
    }
}

/// A request budget (`client: { rateLimit: … }`): `requests` per `per` seconds, at most `burst`
/// at once, shared by every request of one client.
public struct RateLimitSettings: Sendable, Hashable {
    /// Requests allowed per period.
    public var requests: Int
    /// The period in seconds.
    public var per: Int
    /// Requests that may go at once after a quiet time; `nil` = `requests`.
    public var burst: Int?

    public init(requests: Int, per: Int, burst: Int? = nil) {
        self.requests = requests
        self.per = per
        self.burst = burst
    }
}

/// Timeouts, retries, limits, caching and trusted origins of the client (`client:`).
public struct ClientSettings: Sendable, Hashable {
    /// Seconds to establish a connection.
    public var connectTimeout: Int?
    /// Seconds without a byte from the server.
    public var readTimeout: Int?
    /// Seconds for one whole exchange (head and body).
    public var requestTimeout: Int?
    /// Attempts per request, the first included.
    public var retryAttempts: Int?
    /// First backoff delay in milliseconds (doubled each attempt, with jitter).
    public var retryDelayMilliseconds: Int?
    /// Seconds all attempts of one request may take together.
    public var retryMaxSeconds: Int?
    /// Retry POST and PATCH too.
    public var retryAllMethods: Bool
    /// Largest response body in bytes, after decompression.
    public var maxBodyBytes: Int?
    /// Largest response head (all header lines) in bytes.
    public var maxHeaderBytes: Int?
    /// Revalidate responses with ETag / Last-Modified (default true).
    public var cache: Bool
    /// Other origins (`scheme://host[:port]`) that receive credentials and may be paged into.
    public var trustedOrigins: [Located<String>]
    /// The request budget, if any.
    public var rateLimit: RateLimitSettings?

    public init() {
        retryAllMethods = false
        cache = true
        trustedOrigins = []
    }
}

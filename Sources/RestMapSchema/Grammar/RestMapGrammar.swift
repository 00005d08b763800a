/// The RestMap schema language, version 1, as a `Shape`. See Docs/SchemaLanguage.md.
public enum RestMapGrammar {
    /// Format versions this runtime understands.
    public static let supportedVersions = [1]
    /// HTTP methods a descriptor or route may name.
    public static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    /// Attribute types.
    public static let types = ["string", "integer", "number", "decimal", "boolean", "date", "url", "any"]

    static let keyPath = Shape.choice([.string(.keyPath), .list(.string(.text))])
    /// A status item is a code, a class or a range; a plain number reads as its text (`200`).
    static let status = Shape.choice([.string(.status), .list(.string(.status))])
    static let secret = Shape.choice([
        .string(.text),
        .object(ObjectShape("secret", "A secret read from the environment, a file, or given inline; never printed.", [
            Property("env", .string(.text), "Name of the environment variable holding the value."),
            Property("file", .string(.text), "File holding the value (relative to the schema's folder); whitespace around it is dropped."),
            Property("value", .string(.text), "The value itself."),
        ])),
    ])
    static let transformStep = Shape.choice([.string(.text), .dictionary(.any, maximumEntries: 1)])
    static let type = Shape.choice([.enumeration(types), .list(.enumeration(types))])
    /// One attribute, or a list of them (one per level of keys), that the keys of a keyed object become.
    static let keyedBy = Shape.choice([.string(.text), .list(.string(.text))])
    /// RestKit's key transformation: how a name without `from` becomes the key it reads.
    public static let keyStyles = KeyStyle.allCases.map(\.rawValue)

    static let attribute = ObjectShape("attribute", "How one attribute is read from a representation.", [
        Property("from", keyPath, "Source key path; defaults to the attribute's name."),
        Property("type", type, "Value type; a one-item list for arrays ([string]). Default: any."),
        Property("transform", .choice([transformStep, .list(transformStep)]),
                 "Transformer step(s) applied before type coercion: a name or {name: {arguments}}."),
        Property("default", .any, "Value used when the source key is absent."),
        Property("required", .boolean, "Reject a record that lacks this value."),
    ])

    static let relationship = ObjectShape("relationship", "A to-one or to-many relationship to another entity.", [
        Property("from", keyPath, "Source key path of the nested representation(s); \"@self\" for an aggregate."),
        Property("entity", .string(.entityName), required: true, "The target entity (or dynamic entity)."),
        Property("many", .boolean, "A to-many relationship."),
        Property("assign", .enumeration(["set", "replace", "union"]), "How a mapped value is assigned. Default: set."),
        Property("connect", .dictionary(.string(.text)), "Foreign-key connection: local attribute: target attribute."),
        Property("route", .string(.route), "The route that loads this relationship: \"GET /path/:param\"."),
        Property("keyedBy", keyedBy, "The value is an object whose keys are records; each level's key becomes this attribute."),
    ])

    /// A value a condition compares with: text (numbers read as text) or a boolean.
    static let conditionValue = Shape.choice([.string(.text), .boolean])

    static let condition = ObjectShape("condition", "What the value at a key path must be.", [
        Property("equals", .choice([conditionValue, .list(.any)]), "Equal to this value, or to one of these (null: JSON null)."),
        Property("present", .boolean, "true: a value that is not null; false: absent or null."),
        Property("type", .enumeration(DynamicCondition.JSONType.allCases.map(\.rawValue)), "The JSON type of the value."),
    ])

    static let matcher = ObjectShape("matcher", "When every condition holds, the representation maps to the entity.", [
        Property("when", .dictionary(.choice([conditionValue, .list(.any), .object(condition)])), required: true,
                 "Conditions by key path: a value, a list of values, or {equals, present, type}; all must hold."),
        Property("entity", .string(.entityName), required: true, "The entity the representation maps to."),
    ])

    static let dynamic = ObjectShape("dynamic", "Picks the entity of each representation: the first matcher that holds.", [
        Property("match", .list(.object(matcher)), "Matchers in order; the first whose conditions all hold wins."),
        Property("by", keyPath, "Key path whose value picks the entity (with cases)."),
        Property("cases", .dictionary(.string(.entityName)), "Value: entity name (with by)."),
        Property("otherwise", .string(.text), "skip (decline the representation), error, or an entity name."),
    ])

    static let missingAttributes = Property("missingAttributes", .enumeration(["keep", "default"]),
        "keep (default): an absent key leaves the attribute absent; default: it gets its default, or null.")
    static let missingRelationships = Property("missingRelationships", .enumeration(["keep", "clear"]),
        "keep (default): an absent key leaves the relationship as it was; clear: it becomes null or empty.")

    static let entity = ObjectShape("entity", "A named record shape.", [
        Property("identifiedBy", .choice([.string(.text), .list(.string(.text))]), "Attribute(s) identifying a record."),
        Property("attributes", .choice([.dictionary(.choice([keyPath, .object(attribute)])), .list(.string(.text))]),
                 "destination: source key path, or the full form; a list maps names to themselves."),
        Property("relationships", .dictionary(.object(relationship)), "Relationships by name."),
        Property("dynamic", .object(dynamic), "Makes this entity a dynamic entity."),
        Property("routes", .object(ObjectShape("entityRoutes", "Entity routes by method; ANY is the fallback.",
            (methods + ["ANY"]).map { Property($0, .string(.pathPattern), "Path pattern for \($0).") })),
            "The entity's routes by method."),
        missingAttributes,
        missingRelationships,
    ])

    static let response = ObjectShape("response", "Which responses map to which entity.", [
        Property("method", .enumeration(methods + ["ANY"]), "Request method; default ANY."),
        Property("path", .string(.pathPattern), "Path pattern relative to baseURL; omitted: any path."),
        Property("keyPath", keyPath, "Where the records sit; omitted: the whole body."),
        Property("status", status, "Status codes: 200, 2xx, 400-499 or a list; default 2xx."),
        Property("entity", .string(.entityName), required: true, "The entity of the records."),
        Property("keyedBy", keyedBy, "The object's keys are records; each level's key becomes this attribute."),
    ])

    static let errorDescriptor = ObjectShape("error", "How error responses map to messages.", [
        Property("status", status, "Status codes; default 4xx and 5xx."),
        Property("keyPath", keyPath, "Where the error representations sit."),
        Property("message", keyPath, required: true, "Key path of the message within each error."),
        Property("code", keyPath, "Key path of an error code."),
    ])

    static let request = ObjectShape("request", "How records serialize into request bodies.", [
        Property("entity", .string(.entityName), required: true, "The entity serialized."),
        Property("method", .enumeration(methods + ["ANY"]), "Request method; default ANY."),
        Property("rootKeyPath", .string(.text), "Nest the body under this key."),
        Property("attributes", .choice([.list(.string(.text)), .dictionary(.string(.text))]),
                 "Attributes to send: names, or body key: attribute. Default: the inverse of the entity's mapping."),
        Property("format", .enumeration(["json", "form"]), "Body encoding; default json."),
        Property("keyedBy", keyedBy, "Records sent together form an object keyed by these attributes, one level each."),
    ])

    /// Pagination styles.
    public static let paginationKinds = ["page", "offset", "cursor", "link"]

    static let pagination = ObjectShape("pagination", "How pages of a collection are fetched.", [
        Property("kind", .enumeration(paginationKinds), required: true, "Pagination style."),
        Property("path", .string(.pathPattern), "Path pattern of a page: :perPage, :currentPage, :offset, :cursor and route parameters."),
        Property("query", .dictionary(.string(.text)),
                 "Query parameters added to each page request: name: template with :currentPage, :perPage, :offset, :cursor."),
        Property("pageSize", .integer(minimum: 1), "Page size to ask for (:perPage)."),
        Property("firstPage", .integer(minimum: 0), "Number of the first page (kind: page); default 1."),
        Property("perPage", keyPath, "Key path of the page size."),
        Property("currentPage", keyPath, "Key path of the current page number."),
        Property("pageCount", keyPath, "Key path of the number of pages."),
        Property("objectCount", keyPath, "Key path of the number of objects."),
        Property("cursor", keyPath, "Key path of the next cursor (kind: cursor)."),
        Property("cursorHeader", .string(.text), "Response header holding the next cursor (kind: cursor)."),
        Property("next", keyPath, "Key path of the next page's URL in the body (kind: link), besides the Link header."),
        Property("maxPages", .integer(minimum: 1), "Stop after this many pages."),
    ])

    static let auth = ObjectShape("auth", "Request authentication: one kind. Credentials go only to the base URL's origin.", [
        Property("bearer", secret, "Bearer token: Authorization: Bearer <token>."),
        Property("basic", .object(ObjectShape("basic", "HTTP basic authentication.", [
            Property("username", secret, required: true, "User name."),
            Property("password", secret, required: true, "Password."),
        ])), "Basic authentication."),
        Property("apiKey", .object(ObjectShape("apiKey", "An API key in a header or a query parameter.", [
            Property("name", .string(.text), required: true, "Header or query parameter name."),
            Property("in", .enumeration(["header", "query"]), "Where the key goes; default header."),
            Property("value", secret, required: true, "The key."),
        ])), "API key."),
        Property("session", .object(ObjectShape("session", "A session token obtained from a login route.", [
            Property("route", .string(.text), required: true, "Named route of the login request."),
            Property("credentials", .dictionary(secret), required: true, "Body fields of the login request: name: secret."),
            Property("token", keyPath, required: true, "Key path of the token in the login response."),
            Property("header", .string(.text), "Header carrying the token; default Authorization."),
            Property("prefix", .string(.text), "Text before the token in the header; default \"Bearer \"."),
            Property("format", .enumeration(["json", "form"]), "Login body encoding; default json."),
        ])), "Session token from a login route; a 401 logs in again once."),
        Property("oauth2", .object(ObjectShape("oauth2", "OAuth 2.0 access tokens from a token endpoint, sent as bearer tokens.", [
            Property("tokenURL", .string(.text), required: true, "The token endpoint: an absolute http(s) URL, or a path relative to baseURL."),
            Property("grant", .enumeration(OAuth2Grant.allCases.map(\.rawValue)), required: true,
                     "clientCredentials (RFC 6749 4.4) or refreshToken (RFC 6749 6)."),
            Property("clientID", secret, required: true, "The client identifier."),
            Property("clientSecret", secret, "The client secret; omitted for a public client."),
            Property("clientAuthentication", .enumeration(OAuth2ClientAuthentication.allCases.map(\.rawValue)),
                     "basic (default): Authorization: Basic; post: client_id and client_secret in the form body."),
            Property("scopes", .list(.string(.text)), "Scopes to ask for."),
            Property("refreshToken", secret, "The initial refresh token (grant refreshToken); a stored one takes precedence."),
            Property("tokenStore", .string(.text),
                     "File keeping the latest refresh token across runs: a path inside the schema's folder (mode 0600)."),
        ])), "OAuth 2.0: tokens fetched, cached and refreshed before they expire and once on a 401."),
    ])

    static let client = ObjectShape("client", "How the REST client talks to the service.", [
        Property("timeouts", .object(ObjectShape("timeouts", "Timeouts in seconds.", [
            Property("connect", .integer(minimum: 1), "Seconds to connect; default 10."),
            Property("read", .integer(minimum: 1), "Seconds without a byte from the server; default 30."),
            Property("request", .integer(minimum: 1), "Seconds for one whole exchange; default 300."),
        ])), "Timeouts."),
        Property("retry", .object(ObjectShape("retry", "Retries of connection errors, 429, 502, 503 and 504.", [
            Property("attempts", .integer(minimum: 1), "Attempts per request, the first included; default 4."),
            Property("delay", .integer(minimum: 0), "First backoff delay in milliseconds, doubled per attempt with jitter; default 250."),
            Property("maxSeconds", .integer(minimum: 1), "Seconds all attempts of a request may take; default 60."),
            Property("allMethods", .boolean, "Retry POST and PATCH too; default false (idempotent methods only)."),
        ])), "Retries."),
        Property("maxBody", .integer(minimum: 1), "Largest response body in bytes, after decompression; default 268435456 (256 MB)."),
        Property("maxHeaders", .integer(minimum: 1), "Largest response head in bytes; default 65536."),
        Property("cache", .boolean, "Revalidate with ETag / Last-Modified and reuse unchanged results; default true."),
        Property("trustedOrigins", .list(.string(.url)), "Other origins (scheme://host:port) that receive credentials and may be paged into."),
        Property("rateLimit", .object(ObjectShape("rateLimit", "A request budget shared by every request of the client; requests wait for it.", [
            Property("requests", .integer(minimum: 1), required: true, "Requests allowed per period."),
            Property("per", .integer(minimum: 1), "The period in seconds; default 1."),
            Property("burst", .integer(minimum: 1), "Requests that may go at once after a quiet time; default: requests."),
        ])), "Request budget (token bucket); the server's rate-limit headers are honoured besides."),
    ])

    static let route = Shape.choice([
        .string(.route),
        .object(ObjectShape("route", "A named route with its own pagination.", [
            Property("method", .enumeration(methods), "Request method; default GET."),
            Property("path", .string(.pathPattern), required: true, "Path pattern."),
            Property("pagination", .object(pagination), "Pagination of this route."),
        ])),
    ])

    static let store = ObjectShape("store", "Persistence of mapped records.", [
        Property("orphans", .list(.object(ObjectShape("orphans", "Records a GET of this path replaces.", [
            Property("path", .string(.pathPattern), required: true, "Path pattern of the GET."),
            Property("entity", .string(.entityName), required: true, "Entity whose orphans are deleted."),
            Property("where", .dictionary(.string(.text)), "attribute: value or :parameter."),
        ]))), "Orphan deletion rules."),
        Property("search", .dictionary(.list(.string(.text))), "Full-text indexed attributes by entity."),
        Property("tombstone", .dictionary(.dictionary(.any)), "Records matching these values are deleted."),
        Property("modifiedBy", .dictionary(.string(.text)), "Attribute that orders versions, by entity."),
    ])

    static let syncResource = ObjectShape("syncResource", "A resource restmap sync keeps in step with the service.", [
        Property("route", .string(.text), required: true, "Named GET route fetched; its parameters come from each parent record."),
        Property("entity", .string(.entityName), required: true, "Entity of the records the route returns; it needs identifiedBy."),
        Property("parent", .object(ObjectShape("parent", "Fan-out: the route runs once per stored record of this entity.", [
            Property("entity", .string(.entityName), required: true, "The parent entity."),
            Property("parameters", .dictionary(.string(.text)),
                     "route parameter: parent attribute; a parameter not listed takes the attribute of its own name."),
            Property("depth", .integer(minimum: 1), "For a parent entity that is the resource's own (folders in folders): the most levels to go down."),
        ])), "Fan-out over parent records; parents synced in the same run come first."),
        Property("cursor", .object(ObjectShape("cursor", "Incremental state: fetch only what changed since the last run.", [
            Property("attribute", .string(.text), "Attribute of the records that grows with each change (a date or a number); or give 'token'."),
            Property("token", keyPath, "Key path of the token the API hands back in its answer (a sync or delta token), sent as 'parameter' next time."),
            Property("parameter", .string(.text), "Query parameter carrying the state (since=…); required unless filter: client."),
            Property("start", .string(.text), "State of the first run; without it the first run sends no parameter."),
            Property("lookback", .integer(minimum: 0), "Re-read this much before the state: seconds for dates, units for numbers; default 0."),
            Property("filter", .enumeration(["server", "client"]),
                     "server: the API filters by the parameter; client: fetch all and keep the newer records. Default server."),
            Property("ordered", .boolean, "The API answers in ascending cursor order: the state advances with each page. Default false."),
            Property("window", .integer(minimum: 1), "Date windows: fetch [start, start + window) seconds at a time, up to now."),
            Property("endParameter", .string(.text), "Query parameter carrying a window's end (until=…)."),
        ])), "Incremental state; without it every run re-reads the whole resource."),
    ])

    /// The whole file.
    public static let schema = Shape.object(ObjectShape("schema", "A RestMap schema file.", [
        Property("restmap", .integer(minimum: 1), required: true, "Format version: 1."),
        Property("name", .string(.text), "Name of the API."),
        Property("baseURL", .string(.url), "Base URL; request paths are relative to it."),
        Property("plugins", .list(.string(.pluginName)), "Plugins to load, by name: letters, digits, '-' and '_'."),
        Property("headers", .dictionary(.string(.text)), "Headers sent with every request."),
        Property("defaults", .object(ObjectShape("defaults", "Mapping options of every entity.", [
            Property("sourceKeys", .enumeration(keyStyles), "How a name without 'from' becomes the key it reads: snake_case, kebab-case, camelCase, PascalCase."),
            missingAttributes,
            missingRelationships,
        ])), "Mapping options of every entity (RestKit's RKObjectMapping defaults)."),
        Property("auth", .object(auth), "Authentication."),
        Property("client", .object(client), "Timeouts, retries, limits, caching, trusted origins and the request budget of the client."),
        Property("entities", .dictionary(.object(entity)), required: true, "Record shapes by name."),
        Property("responses", .list(.object(response)), "Response descriptors."),
        Property("errors", .list(.object(errorDescriptor)), "Error descriptors."),
        Property("routes", .dictionary(route), "Named routes: \"METHOD /path\"."),
        Property("requests", .list(.object(request)), "Request descriptors."),
        Property("pagination", .object(pagination), "Default pagination."),
        Property("store", .object(store), "Persistence."),
        Property("sync", .dictionary(.object(syncResource)), "Resources restmap sync keeps in step with the service, by name."),
    ]))
}

import Foundation
import RestMap
import RestMapSchema
import Synchronization

/// Secrets read for one client, and where they may go. Credentials are added only to requests
/// whose origin is the base URL's or a trusted one; nothing here is ever printed.
struct Credentials: Sendable {
    /// Headers that carry a credential.
    var headers: [String: String] = [:]
    /// Query parameters that carry a credential.
    var query: [String: String] = [:]
    /// Origins that receive them.
    var origins: Set<Origin>

    /// Every secret value, for redaction.
    var secrets: [String] { Array(headers.values) + Array(query.values) }

    /// No credentials (for origins that receive none).
    init(origins: Set<Origin>) {
        self.origins = origins
    }

    /// Reads the secrets of an `auth:` (a session's token comes later, from its login).
    init(auth: Authentication?, origins: Set<Origin>, configuration: ClientConfiguration) throws(ClientError) {
        self.origins = origins
        switch auth {
        case nil, .session?, .oauth2?:
            break
        case .bearer(let secret)?:
            headers["Authorization"] = "Bearer " + (try Self.read(secret, configuration))
        case .basic(let username, let password)?:
            let pair = (try Self.read(username, configuration)) + ":" + (try Self.read(password, configuration))
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
        case .apiKey(let name, let placement, let secret)?:
            let value = try Self.read(secret, configuration)
            switch placement {
            case .header: headers[name] = value
            case .query: query[name] = value
            }
        }
    }

    /// Whether a URL may receive the credentials.
    func admits(_ url: URL) -> Bool {
        Origin(url).map(origins.contains) ?? false
    }

    /// A secret's value. The error names where it was looked for, never a value.
    static func read(_ secret: Secret, _ configuration: ClientConfiguration) throws(ClientError) -> String {
        switch secret {
        case .inline(let value):
            return value
        case .environment(let name):
            guard let value = configuration.environment[name], !value.isEmpty else {
                throw .invalidRequest("the secret environment variable \(name) is not set")
            }
            return value
        case .file(let path):
            let full = path.hasPrefix("/") ? path : URL(fileURLWithPath: configuration.secretsDirectory ?? ".")
                .appendingPathComponent(path).path
            guard let data = FileManager.default.contents(atPath: full) else {
                throw .invalidRequest("cannot read the secret file \(full)")
            }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

/// Replaces secret values in text (URLs, messages) with `REDACTED`. Copies share their secrets:
/// a token obtained later (OAuth 2.0) is registered once and redacted everywhere.
struct Redactor: Sendable {
    /// Whether a header carries a credential (`Authorization`, `Cookie`, an API key or token):
    /// its value is redacted and never reaches `@metadata.HTTP.request.headers`.
    static func isCredentialHeader(_ name: String) -> Bool {
        let name = name.lowercased()
        return ["authorization", "proxy-authorization", "cookie"].contains(name)
            || ["key", "token", "secret", "password"].contains { name.contains($0) }
    }

    private final class Secrets: Sendable {
        let values: Mutex<[String]>
        init(_ values: [String]) { self.values = Mutex(values) }
    }

    private let secrets: Secrets

    init(_ secrets: [String]) {
        self.secrets = Secrets(Self.forms(of: secrets))
    }

    /// Adds secrets learnt after the client was built (access and refresh tokens).
    func register(_ values: [String]) {
        let added = Self.forms(of: values)
        secrets.values.withLock { current in
            let fresh = added.filter { !current.contains($0) }
            guard !fresh.isEmpty else { return }
            current = (current + fresh).sorted { $0.count > $1.count }
        }
    }

    /// The texts replaced: each secret of 3 characters or more, and its percent-encoded form;
    /// longer first, so a secret that contains another is replaced whole.
    private static func forms(of secrets: [String]) -> [String] {
        secrets.filter { $0.count >= 3 }.sorted { $0.count > $1.count }.flatMap { [$0, PathPattern.escape($0)] }
    }

    func callAsFunction(_ text: String) -> String {
        secrets.values.withLock { $0 }.reduce(text) { $0.replacingOccurrences(of: $1, with: "REDACTED") }
    }
}

/// Percent-encoding of query components.
enum PercentEncoding {

    /// `url` with query parameters appended.
    static func appending(_ parameters: [(String, String)], to url: String) -> String {
        guard !parameters.isEmpty else { return url }
        let query = parameters.map { PathPattern.escape($0.0) + "=" + PathPattern.escape($0.1) }.joined(separator: "&")
        let fragmentless = url.split(separator: "#", maxSplits: 1).first.map(String.init) ?? url
        return fragmentless + (fragmentless.contains("?") ? "&" : "?") + query
    }
}

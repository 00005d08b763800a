import Foundation
import RestMap
import RestMapSchema
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An access token and when to stop using it.
struct OAuth2Token: Sendable {
    var access: String
    /// When the token should be refreshed: shortly before `expires_in` runs out (a quarter of
    /// its lifetime before, at most 60 seconds); `nil` when the server gave no lifetime.
    var refreshAt: ContinuousClock.Instant?

    init(access: String, expiresIn: Int?, obtained: ContinuousClock.Instant = .now) {
        self.access = access
        refreshAt = expiresIn.map { lifetime in
            let margin = min(60_000, lifetime * 250)
            return obtained + .milliseconds(lifetime * 1000 - margin)
        }
    }

    var isFresh: Bool { refreshAt.map { ContinuousClock.now < $0 } ?? true }
}

/// `auth: { oauth2: … }` of one client: the secrets read once, the latest refresh token, the
/// token store, and the cached access token.
final class OAuth2Session: Sendable {
    let settings: OAuth2Settings
    /// The token endpoint, absolute.
    let tokenURL: String
    let clientID: String
    let clientSecret: String?
    /// Where the latest refresh token is kept: `ClientConfiguration.refreshTokenKeeper`, else the
    /// schema's `tokenStore` file; `nil`: only in memory.
    let keeper: (any RefreshTokenKeeper)?
    /// The refresh token to use next when there is no keeper (the initial one, then each rotated one).
    let refreshToken: Mutex<String?>
    let tokens = OAuth2Tokens()

    init(settings: OAuth2Settings, baseURL: String, configuration: ClientConfiguration) throws(ClientError) {
        self.settings = settings
        tokenURL = settings.tokenURL.hasPrefix("/") ? baseURL + settings.tokenURL : settings.tokenURL
        guard Origin(tokenURL) != nil else { throw .invalidRequest("the OAuth 2.0 tokenURL '\(tokenURL)' is not an absolute http(s) URL") }
        clientID = try Credentials.read(settings.clientID, configuration)
        clientSecret = try settings.clientSecret.map { secret throws(ClientError) in try Credentials.read(secret, configuration) }
        keeper = configuration.refreshTokenKeeper ?? settings.tokenStore.map { path in
            TokenStore(path: path.hasPrefix("/") ? path : URL(fileURLWithPath: configuration.secretsDirectory ?? ".")
                .appendingPathComponent(path).path)
        }
        // With a keeper the initial token may be absent (the keeper has one) or read only when the keeper is empty.
        let initial: String?
        if let secret = settings.refreshToken {
            do { initial = try Credentials.read(secret, configuration) } catch {
                guard keeper != nil else { throw error }
                initial = nil
            }
        } else {
            initial = nil
        }
        refreshToken = Mutex(initial)
    }

    /// The secrets known when the client is built, for redaction.
    var secrets: [String] { [clientID, clientSecret, refreshToken.withLock { $0 }].compactMap { $0 } }
}

/// The access token, obtained once and shared by concurrent requests; a stale or refused one
/// is replaced by one new request to the token endpoint however many requests wait for it.
actor OAuth2Tokens {
    private var cached: OAuth2Token?
    private var pending: Task<OAuth2Token, any Error>?

    func token(_ obtain: @escaping @Sendable () async throws(ClientError) -> OAuth2Token) async throws(ClientError) -> String {
        if let cached, cached.isFresh { return cached.access }
        let task = pending ?? Task { try await obtain() }
        pending = task
        do {
            let token = try await task.value
            if pending == task {
                pending = nil
                cached = token
            }
            return token.access
        } catch {
            if pending == task { pending = nil }
            throw error as? ClientError ?? .invalidRequest("obtaining an OAuth 2.0 token failed: \(error)")
        }
    }

    /// Forgets a token the server refused (unless another request already replaced it).
    func invalidate(_ access: String) {
        if cached?.access == access { cached = nil }
    }
}

/// The file that keeps the latest refresh token (`tokenStore`), mode 0600, as JSON
/// `{"refresh_token": "…"}`. Writes are atomic and durable: a temporary file in the same folder,
/// fsync, rename over the store, fsync of the folder. Processes sharing it take an exclusive
/// `flock` on `<store>.lock` around reading it, refreshing and writing the rotated token.
struct TokenStore: RefreshTokenKeeper {
    let path: String

    var lockPath: String { path + ".lock" }

    var location: String { "the token store \(path)" }

    /// An exclusive lock on the store, held until `release`.
    final class Lock: RefreshTokenLease {
        let store: TokenStore
        let descriptor: Int32
        init(store: TokenStore, descriptor: Int32) {
            self.store = store
            self.descriptor = descriptor
        }
        func storedToken() async throws -> String? { try store.read() }
        func keep(_ token: String) async throws { try store.save(token) }
        func release() async {
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    func lock(tokenURL: String, clientID: String) async throws -> any RefreshTokenLease {
        try await lock()
    }

    /// Takes the lock, waiting for another process that holds it (off the concurrency pool).
    func lock() async throws(ClientError) -> Lock {
        let path = lockPath
        let result: Result<Lock, ClientError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else {
                    continuation.resume(returning: .failure(.invalidRequest("cannot open the token store lock \(path): \(Self.errorText())")))
                    return
                }
                while flock(descriptor, LOCK_EX) != 0 {
                    if errno == EINTR { continue }
                    let text = Self.errorText()
                    close(descriptor)
                    continuation.resume(returning: .failure(.invalidRequest("cannot lock the token store \(path): \(text)")))
                    return
                }
                continuation.resume(returning: .success(Lock(store: self, descriptor: descriptor)))
            }
        }
        return try result.get()
    }

    /// The stored refresh token; `nil` when there is no store file yet.
    func read() throws(ClientError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let token = object["refresh_token"] as? String, !token.isEmpty else {
            throw .invalidRequest("the token store \(path) is unreadable or holds no refresh_token")
        }
        return token
    }

    /// Replaces the stored token durably (see the type's description).
    func save(_ token: String) throws(ClientError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".\(UUID().uuidString).tmp"
        guard let data = try? JSONSerialization.data(withJSONObject: ["refresh_token": token], options: [.sortedKeys]) else {
            throw .invalidRequest("cannot encode the refresh token for \(path)")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .invalidRequest("cannot create \(temporary): \(Self.errorText())") }
        var ok = fchmod(descriptor, 0o600) == 0
        let bytes = Array(data) + [UInt8(ascii: "\n")]
        var written = 0
        while ok, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { ok = false } else { written += count }
        }
        ok = ok && fsync(descriptor) == 0
        let problem = ok ? "" : Self.errorText()
        close(descriptor)
        guard ok else {
            unlink(temporary)
            throw .invalidRequest("cannot write the token store \(path): \(problem)")
        }
        guard rename(temporary, path) == 0 else {
            let text = Self.errorText()
            unlink(temporary)
            throw .invalidRequest("cannot replace the token store \(path): \(text)")
        }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .invalidRequest("cannot open the folder of the token store \(folder): \(Self.errorText())") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw .invalidRequest("cannot sync the folder of the token store \(folder): \(Self.errorText())") }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

extension RestClient {
    /// The exchange with the OAuth 2.0 access token: obtained first, and once more on a 401
    /// (a refresh), after which the request is repeated once.
    func exchangeOAuth2(_ oauth2: OAuth2Session, method: String, url: String, headers: [String: String], body: [UInt8]?)
        async throws(ClientError) -> (RawResponse, [Attempt]) {
        var tokenCredentials = credentials
        let token = try await oauth2.tokens.token { () async throws(ClientError) in try await obtainToken(oauth2) }
        tokenCredentials.headers["Authorization"] = "Bearer " + token
        let first = try await exchange(method: method, url: url, headers: headers, body: body, credentials: tokenCredentials)
        guard first.0.status == 401 else { return first }
        logger.info("\(redact(url)) answered 401: refreshing the OAuth 2.0 access token")
        await oauth2.tokens.invalidate(token)
        let renewed = try await oauth2.tokens.token { () async throws(ClientError) in try await obtainToken(oauth2) }
        tokenCredentials.headers["Authorization"] = "Bearer " + renewed
        let second = try await exchange(method: method, url: url, headers: headers, body: body, credentials: tokenCredentials)
        return (second.0, first.1 + second.1)
    }

    /// One request to the token endpoint. With a refresh token and a keeper, under the keeper's
    /// lock: the kept token (newer than the configured one) is used, and a rotated one is kept
    /// durably before the lock is released and before the access token is used.
    func obtainToken(_ oauth2: OAuth2Session) async throws(ClientError) -> OAuth2Token {
        guard oauth2.settings.grant == .refreshToken, let keeper = oauth2.keeper else { return try await requestToken(oauth2, lease: nil) }
        let lease = try await Self.keeping(keeper) { try await keeper.lock(tokenURL: oauth2.tokenURL, clientID: oauth2.clientID) }
        do {
            let token = try await requestToken(oauth2, lease: (lease, keeper))
            await lease.release()
            return token
        } catch {
            await lease.release()
            throw error
        }
    }

    /// What a keeper did, with its failures as client errors that say where the token is kept.
    static func keeping<T>(_ keeper: any RefreshTokenKeeper, _ body: () async throws -> T) async throws(ClientError) -> T {
        do { return try await body() } catch let error as ClientError { throw error } catch {
            throw .invalidRequest("\(keeper.location): \(error)")
        }
    }

    /// The request to the token endpoint, holding a keeper's lease if there is one.
    private func requestToken(_ oauth2: OAuth2Session, lease held: (lease: any RefreshTokenLease, keeper: any RefreshTokenKeeper)?)
        async throws(ClientError) -> OAuth2Token {
        let settings = oauth2.settings
        var form: [(String, String)]
        var used: String?
        switch settings.grant {
        case .clientCredentials:
            form = [("grant_type", "client_credentials")]
        case .refreshToken:
            if let held, let stored = try await Self.keeping(held.keeper, { try await held.lease.storedToken() }) {
                redact.register([stored])
                oauth2.refreshToken.withLock { $0 = stored }
            }
            guard let refresh = oauth2.refreshToken.withLock({ $0 }) else {
                throw .invalidRequest("no OAuth 2.0 refresh token: \(held?.keeper.location ?? "the token store") is empty and refreshToken is not set")
            }
            used = refresh
            form = [("grant_type", "refresh_token"), ("refresh_token", refresh)]
        }
        if !settings.scopes.isEmpty { form.append(("scope", settings.scopes.joined(separator: " "))) }
        var headers = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        switch settings.clientAuthentication {
        case .basic:
            // RFC 6749 §2.3.1: the id and secret are form-encoded before base64.
            let pair = FormBody.encode(oauth2.clientID) + ":" + FormBody.encode(oauth2.clientSecret ?? "")
            headers["Authorization"] = "Basic " + Data(pair.utf8).base64EncodedString()
        case .post:
            form.append(("client_id", oauth2.clientID))
            if let secret = oauth2.clientSecret { form.append(("client_secret", secret)) }
        }
        let body = Array(form.map { FormBody.encode($0.0) + "=" + FormBody.encode($0.1) }.joined(separator: "&").utf8)
        let url = oauth2.tokenURL
        counters.value.withLock { $0.tokenRequests += 1 }
        // No credential of the API (`Credentials` without origins): only the client's own, to the
        // token URL, never through a redirect.
        let (raw, _) = try await exchange(method: "POST", url: url, headers: headers, body: body,
                                          credentials: Credentials(origins: []),
                                          budgeted: false, followRedirects: false)
        let object = (try? JSONSerialization.jsonObject(with: Data(raw.body))) as? [String: Any]
        guard (200..<300).contains(raw.status) else {
            let code = object?["error"] as? String
            let description = object?["error_description"] as? String
            let reason = [code, description].compactMap { $0 }.joined(separator: ": ")
            throw .invalidRequest(redact("the OAuth 2.0 token endpoint \(url) answered \(raw.status)\(reason.isEmpty ? "" : ": " + reason)"))
        }
        guard let object, let access = object["access_token"] as? String, !access.isEmpty else {
            throw .invalidRequest("the OAuth 2.0 token endpoint \(url) answered no access_token")
        }
        redact.register([access])
        if let type = object["token_type"] as? String, type.caseInsensitiveCompare("bearer") != .orderedSame {
            throw .invalidRequest("the OAuth 2.0 token endpoint \(url) answered a token of type '\(type)'; only bearer tokens are supported")
        }
        let expiresIn = (object["expires_in"] as? NSNumber)?.intValue ?? (object["expires_in"] as? String).flatMap(Int.init)
        if let rotated = object["refresh_token"] as? String, !rotated.isEmpty, rotated != used {
            redact.register([rotated])
            // Durable before it is used or the lock is released: a crash from here on finds it.
            if let held { try await Self.keeping(held.keeper) { try await held.lease.keep(rotated) } }
            oauth2.refreshToken.withLock { $0 = rotated }
            logger.info("the OAuth 2.0 refresh token was rotated\(held.map { "; kept in \($0.keeper.location)" } ?? "")")
        }
        logger.debug("obtained an OAuth 2.0 access token from \(url)\(expiresIn.map { " (expires in \($0) s)" } ?? "")")
        return OAuth2Token(access: access, expiresIn: expiresIn)
    }
}

/// `application/x-www-form-urlencoded` components (RFC 6749 appendix B).
enum FormBody {
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                result += "+"
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }
}

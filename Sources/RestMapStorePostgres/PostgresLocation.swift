import Foundation
import NIOSSL
import PostgresNIO
import RestMapStore

/// Where a PostgreSQL store is: a `postgres://user@host:port/database?sslmode=…` URL, read as
/// libpq reads one. The password comes from the URL, else `PGPASSWORD`, else the password file
/// (`PGPASSFILE`, or `~/.pgpass`); it is never part of `description`.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// libpq's `sslmode`: `disable`, `allow`, `prefer` (the default), `require`, `verify-ca`, `verify-full`.
    public var sslMode: String
    /// libpq's `sslrootcert`: the certificates that `verify-ca` and `verify-full` trust (the system's when absent).
    public var sslRootCertificate: String?
    var password: String?

    /// Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`) rather than a file path.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a URL; `environment` supplies `PGPASSWORD`, `PGPASSFILE`, `PGUSER`, `PGPORT`, `HOME`.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw StoreError("not a PostgreSQL URL (postgres://user@host:port/database): \(Self.redacted(text))")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        port = components.port ?? environment["PGPORT"].flatMap { Int($0) } ?? 5432
        user = components.user.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? (environment["PGDATABASE"] ?? user) : (path.removingPercentEncoding ?? path)
        var sslMode = "prefer"
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                let mode = item.value ?? ""
                guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(mode) else {
                    throw StoreError("sslmode '\(mode)': use disable, allow, prefer, require, verify-ca or verify-full")
                }
                sslMode = mode
            case "sslrootcert": sslRootCertificate = item.value
            case "application_name", "connect_timeout": continue
            default: throw StoreError("\(Self.redacted(text)): unknown URL parameter '\(item.name)' (RestMap reads sslmode and sslrootcert)")
            }
        }
        self.sslMode = sslMode
        password = components.password.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGPASSWORD"]
            ?? Self.passwordFile(environment).flatMap { Self.password(in: $0, host: host, port: port, database: database, user: user) }
    }

    /// Whether a password was found (in the URL, `PGPASSWORD` or the password file).
    public var hasPassword: Bool { password != nil }

    /// The URL without its password.
    public var description: String {
        var text = "postgres://\(user)@\(host):\(port)/\(database)"
        if sslMode != "prefer" { text += "?sslmode=\(sslMode)" }
        return text
    }

    /// A text that may be a URL, with any password replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else { return text }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }

    private static func passwordFile(_ environment: [String: String]) -> String? {
        if let file = environment["PGPASSFILE"] { return file }
        return environment["HOME"].map { $0 + "/.pgpass" }
    }

    /// The password of the first matching `host:port:database:user:password` line (`*` matches anything).
    static func password(in file: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var fields: [String] = []
            var field = ""
            var escaped = false
            for character in line {
                if escaped { field.append(character); escaped = false } else if character == "\\" { escaped = true }
                else if character == ":" && fields.count < 4 { fields.append(field); field = "" } else { field.append(character) }
            }
            fields.append(field)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields, wanted).allSatisfy({ $0 == "*" || $0 == $1 || ($0 == "localhost" && $1 == "127.0.0.1") }) { return fields[4] }
        }
        return nil
    }

    /// The TLS settings of `sslMode`.
    private func tlsConfiguration() -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let root = sslRootCertificate { tls.trustRoots = .file(root) }
        switch sslMode {
        case "verify-ca": tls.certificateVerification = .noHostnameVerification
        case "verify-full": tls.certificateVerification = .fullVerification
        default: tls.certificateVerification = .none
        }
        return tls
    }

    /// The configuration of one connection to this location (a first connection, which reports
    /// a wrong address, database or password at once, where a pool would retry).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "allow", "prefer": .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
        default: .require(try NIOSSLContext(configuration: tlsConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The client configuration of this location.
    func configuration() throws -> PostgresClient.Configuration {
        let mode: PostgresClient.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "allow", "prefer": .prefer(tlsConfiguration())
        default: .require(tlsConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
        configuration.options.maximumConnections = 8
        configuration.options.keepAliveBehavior = nil
        return configuration
    }
}

import Foundation

/// The scheme, host and port of a URL: what credentials are bound to.
public struct Origin: Sendable, Hashable, CustomStringConvertible {
    public var scheme: String
    public var host: String
    public var port: Int

    /// The origin of an absolute http(s) URL; `nil` for anything else.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host?.lowercased(),
              !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// The origin of a URL text.
    public init?(_ text: String) {
        guard let url = URL(string: text) else { return nil }
        self.init(url)
    }

    /// `host:port` as messages show it.
    public var hostAndPort: String { "\(host):\(port)" }

    public var description: String { "\(scheme)://\(host):\(port)" }
}

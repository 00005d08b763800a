import Foundation

/// A request budget: at most `requests` per `period`, at most `burst` at once after a quiet time
/// (a token bucket). Every request of one `RestClient` — concurrent ones, retries, pages and
/// logins — takes a token; a request without one waits for it, it never fails for it.
public struct RequestBudget: Sendable, Hashable {
    /// Requests allowed per `period`.
    public var requests: Int
    /// The period the requests are counted over.
    public var period: Duration
    /// Requests that may go at once (the bucket's size).
    public var burst: Int

    /// A budget of `requests` per `period`; `burst` defaults to `requests`. Values below 1 count as 1.
    public init(requests: Int, per period: Duration, burst: Int? = nil) {
        self.requests = max(1, requests)
        self.period = period > .zero ? period : .seconds(1)
        self.burst = max(1, burst ?? requests)
    }

    /// Tokens added per second.
    var rate: Double { Double(requests) / period.seconds }

    /// `10 per 1 s, burst 5`, as log lines name it.
    var summary: String {
        "\(requests) per \(Self.format(period.seconds)) s, burst \(burst)"
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.2f", seconds)
    }
}

/// What a server said about its rate limit in one response: requests left, and when the count
/// starts over. Read from `X-RateLimit-Remaining` / `X-RateLimit-Reset` and from the `RateLimit`
/// field of draft-ietf-httpapi-ratelimit-headers-10 (`RateLimit: "default";r=0;t=5`, with
/// `RateLimit-Policy: "default";q=100;w=60`).
struct ServerRateLimit: Sendable, Equatable {
    /// Requests left in the current window.
    var remaining: Int
    /// Seconds from now until the window starts over.
    var resetAfter: Double
    /// The header that said so, for the log.
    var source: String

    /// `X-RateLimit-Reset` values above this are epoch seconds, below it seconds from now.
    static let epochThreshold = 1_000_000_000.0

    /// The most restrictive signal of a response's headers (fewest requests left; on a tie the
    /// later reset), or `nil` when it has none with both a remaining count and a reset.
    static func parse(_ headers: [(name: String, value: String)], now: Date = Date()) -> ServerRateLimit? {
        func value(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        var candidates: [ServerRateLimit] = []
        if let signal = xRateLimit(remaining: value("X-RateLimit-Remaining"), reset: value("X-RateLimit-Reset"), now: now) {
            candidates.append(signal)
        }
        if let field = value("RateLimit"), let signal = rateLimitField(field, policy: value("RateLimit-Policy")) {
            candidates.append(signal)
        }
        return candidates.min { ($0.remaining, -$0.resetAfter) < ($1.remaining, -$1.resetAfter) }
    }

    /// `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` as seconds from now (`30`) or, above
    /// 10^9, as an epoch time in seconds (`1767225600`, GitHub's form); fractions are allowed.
    static func xRateLimit(remaining: String?, reset: String?, now: Date = Date()) -> ServerRateLimit? {
        guard let remainingText = remaining?.trimmingCharacters(in: .whitespaces), let count = Int(remainingText),
              let resetText = reset?.trimmingCharacters(in: .whitespaces), let resetValue = Double(resetText),
              resetValue.isFinite, resetValue >= 0 else { return nil }
        let seconds = resetValue > epochThreshold ? resetValue - now.timeIntervalSince1970 : resetValue
        return ServerRateLimit(remaining: max(0, count), resetAfter: max(0, seconds),
                               source: "X-RateLimit-Remaining: \(remainingText), X-RateLimit-Reset: \(resetText)")
    }

    /// The `RateLimit` field (a structured-field list, one item per policy: `"name";r=R;t=T`).
    /// A policy without `t` takes the window `w` of the same-named `RateLimit-Policy` item.
    /// Items of other shapes (the `limit=…, remaining=…` dictionary of revision 07) are ignored.
    static func rateLimitField(_ field: String, policy: String?) -> ServerRateLimit? {
        let windows = Dictionary(StructuredFieldList.parse(policy ?? "").compactMap { item in
            item.parameters["w"].flatMap(Int.init).map { (item.value, $0) }
        }, uniquingKeysWith: { first, _ in first })
        var best: ServerRateLimit?
        for item in StructuredFieldList.parse(field) {
            guard let remaining = item.parameters["r"].flatMap(Int.init),
                  let reset = item.parameters["t"].flatMap(Int.init) ?? windows[item.value] else { continue }
            let signal = ServerRateLimit(remaining: max(0, remaining), resetAfter: Double(max(0, reset)),
                                         source: "RateLimit: \"\(item.value)\";r=\(remaining);t=\(reset)")
            if best.map({ (signal.remaining, -signal.resetAfter) < ($0.remaining, -$0.resetAfter) }) ?? true { best = signal }
        }
        return best
    }
}

/// The `RateLimit-Policy` of draft-ietf-httpapi-ratelimit-headers-10: a quota per window.
struct RateLimitPolicy: Sendable, Equatable {
    var name: String
    /// Requests (quota units) per window.
    var quota: Int
    /// The window in seconds, when given.
    var window: Int?

    static func parse(_ field: String) -> [RateLimitPolicy] {
        StructuredFieldList.parse(field).compactMap { item in
            item.parameters["q"].flatMap(Int.init).map { RateLimitPolicy(name: item.value, quota: $0, window: item.parameters["w"].flatMap(Int.init)) }
        }
    }
}

/// A lenient reader of RFC 9651 structured-field lists as the rate-limit fields use them: each
/// member a string or token with `;key=value` parameters. Inner lists and members that do not
/// parse are skipped; parameter values keep their text (strings unquoted).
enum StructuredFieldList {
    struct Item: Sendable, Equatable {
        var value: String
        var parameters: [String: String]
    }

    static func parse(_ text: String) -> [Item] {
        var items: [Item] = []
        var scanner = Scanner(Array(text.utf8))
        while !scanner.atEnd {
            scanner.skipSpaces()
            if let item = scanner.item() { items.append(item) }
            // Skip to the next member (whatever is left of a malformed one included).
            scanner.skipMember()
        }
        return items
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpaces() {
            while let byte = current, byte == 0x20 || byte == 0x09 { index += 1 }
        }

        mutating func skipMember() {
            var quoted = false
            while let byte = current {
                index += 1
                if quoted {
                    if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { quoted = false }
                } else if byte == UInt8(ascii: "\"") {
                    quoted = true
                } else if byte == UInt8(ascii: ",") {
                    return
                }
            }
        }

        mutating func item() -> Item? {
            guard let value = bareItem() else { return nil }
            var parameters: [String: String] = [:]
            while true {
                skipSpaces()
                guard current == UInt8(ascii: ";") else { break }
                index += 1
                skipSpaces()
                guard let key = token(), !key.isEmpty else { return nil }
                if current == UInt8(ascii: "=") {
                    index += 1
                    guard let parameter = bareItem() else { return nil }
                    parameters[key.lowercased()] = parameter
                } else {
                    parameters[key.lowercased()] = "?1"
                }
            }
            skipSpaces()
            guard atEnd || current == UInt8(ascii: ",") else { return nil }
            return Item(value: value, parameters: parameters)
        }

        /// A string (unquoted), or the text of a token, number, byte sequence or boolean.
        mutating func bareItem() -> String? {
            guard let first = current else { return nil }
            if first == UInt8(ascii: "\"") {
                index += 1
                var text: [UInt8] = []
                while let byte = current {
                    index += 1
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = current else { return nil }
                        text.append(escaped)
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        return String(decoding: text, as: UTF8.self)
                    } else {
                        text.append(byte)
                    }
                }
                return nil
            }
            if first == UInt8(ascii: ":") {
                guard let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: ":")) else { return nil }
                defer { index = end + 1 }
                return String(decoding: bytes[index...end], as: UTF8.self)
            }
            return token()
        }

        /// Letters, digits and `*-._:/%+?!#$&'^`|~` (a token, a number or a boolean).
        mutating func token() -> String? {
            let start = index
            while let byte = current, byte > 0x20, byte < 0x7F,
                  ![UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: "\""), UInt8(ascii: "("), UInt8(ascii: ")")].contains(byte) {
                index += 1
            }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }
    }
}

/// The budget and the server's rate-limit signals of one client, shared by its copies and
/// every concurrent request: `reserve` says how long the next request waits, and why.
actor RateGate {
    let budget: RequestBudget?
    /// Whether the server's signals hold requests.
    let honoursServer: Bool
    private var tokens: Double
    private var refilled: ContinuousClock.Instant
    private var serverRemaining: Int?
    private var serverReset: ContinuousClock.Instant?
    private var serverSource = ""

    init(budget: RequestBudget?, honoursServer: Bool, now: ContinuousClock.Instant = .now) {
        self.budget = budget
        self.honoursServer = honoursServer
        tokens = Double(budget?.burst ?? 0)
        refilled = now
    }

    /// Whether there is anything to wait for at all.
    nonisolated var isActive: Bool { budget != nil || honoursServer }

    /// Takes the next request's place: the time to wait before sending it (zero when it may go
    /// now) and why. The token is taken at once, so concurrent requests queue in order.
    func reserve(now: ContinuousClock.Instant = .now) -> (wait: Duration, reason: String)? {
        var start = now
        var reasons: [String] = []
        if let reset = serverReset {
            if now >= reset {
                serverRemaining = nil
                serverReset = nil
            } else if let remaining = serverRemaining {
                if remaining <= 0 {
                    start = reset
                    reasons.append("the server's rate limit is used up (\(serverSource)) until its reset")
                } else {
                    serverRemaining = remaining - 1
                }
            }
        }
        if let budget {
            let rate = budget.rate
            if now > refilled {
                tokens = min(Double(budget.burst), tokens + (now - refilled).seconds * rate)
                refilled = now
            }
            tokens -= 1
            if tokens < 0 {
                let ready = now + .milliseconds(Int64((-tokens / rate * 1000).rounded(.up)))
                if ready > start {
                    start = ready
                    reasons.append("the request budget (\(budget.summary)) is spent")
                }
            }
        }
        let wait = start - now
        guard wait > .milliseconds(1) else { return nil }
        return (wait, reasons.joined(separator: "; "))
    }

    /// Takes in what a response said. A later window replaces what is known; within the same
    /// window a higher count (an earlier request answered late) does not undo the requests sent since.
    func observe(_ signal: ServerRateLimit, now: ContinuousClock.Instant = .now) {
        guard honoursServer else { return }
        let reset = now + .milliseconds(Int64((signal.resetAfter * 1000).rounded(.up)))
        if let current = serverReset, let remaining = serverRemaining, now < current,
           reset <= current + .milliseconds(500), signal.remaining >= remaining {
            serverReset = max(current, reset)
            if signal.remaining == remaining { serverSource = signal.source }
            return
        }
        serverRemaining = signal.remaining
        serverReset = reset
        serverSource = signal.source
    }
}

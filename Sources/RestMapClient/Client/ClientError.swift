import HTTPTypes
import RestMap

/// One try of a request, as the final error lists it.
public struct Attempt: Sendable, Hashable, CustomStringConvertible {
    /// The status answered, or `nil` when the exchange failed.
    public var status: HTTPResponse.Status?
    /// The failure, when there was no status.
    public var failure: String?
    /// Seconds waited before the next attempt (`nil` for the last one).
    public var waitedSeconds: Double?

    public var description: String {
        let outcome = status.map { "status \($0.code)" } ?? failure ?? "no answer"
        return waitedSeconds.map { outcome + String(format: ", waited %.1f s", $0) } ?? outcome
    }
}

/// Why a client call failed. Every case names the URL (without credentials) it concerns.
public enum ClientError: Error, Sendable, CustomStringConvertible {
    /// The schema, a route, a secret or a record could not produce the request.
    case invalidRequest(String)
    /// The service answered an error status; `messages` come from the schema's error descriptors.
    case errorResponse(status: HTTPResponse.Status, url: String, messages: [ErrorMessage], attempts: [Attempt])
    /// A response the schema cannot map (malformed body, no descriptor, nothing mappable).
    case unmappable(status: HTTPResponse.Status, url: String, failure: MappingFailure)
    /// The exchange failed (connection, timeout, closed mid-body) after every attempt.
    case transport(url: String, reason: String, attempts: [Attempt])
    /// The client refused to go on: a limit was exceeded, a redirect was unsafe, or the answer
    /// cannot be used (a redirect without `Location`, an unsolicited 304, a corrupt compressed body).
    case refused(url: String, reason: String)
    /// The task was cancelled.
    case cancelled(url: String)

    public var description: String {
        switch self {
        case .invalidRequest(let message):
            return message
        case .errorResponse(let status, let url, let messages, let attempts):
            let text = messages.isEmpty ? "" : ": " + messages.map(\.message).joined(separator: ", ")
            return "\(url) answered \(status.code)\(text)" + Self.attemptsText(attempts)
        case .unmappable(let status, let url, let failure):
            return "\(url) (status \(status.code)): \(failure)"
        case .transport(let url, let reason, let attempts):
            return "\(url): \(reason)" + Self.attemptsText(attempts)
        case .refused(let url, let reason):
            return "\(url): \(reason)"
        case .cancelled(let url):
            return "\(url): cancelled"
        }
    }

    /// The process exit status the CLI uses: 1 for an answer that is an error, 3 when no usable
    /// answer came (transport failure, refusal, limit), 1 for a request that could not be made.
    public var exitStatus: Int32 {
        switch self {
        case .invalidRequest, .errorResponse, .unmappable: 1
        case .transport, .refused, .cancelled: 3
        }
    }

    /// ` (4 attempts)` when every attempt ended alike (the message names that outcome once), else
    /// each attempt's outcome and wait: ` (3 attempts: status 503, waited 0.2 s; …; status 200)`.
    private static func attemptsText(_ attempts: [Attempt]) -> String {
        guard attempts.count > 1 else { return "" }
        let outcomes = Set(attempts.map { Attempt(status: $0.status, failure: $0.failure, waitedSeconds: nil) })
        if outcomes.count == 1 { return " (\(attempts.count) attempts)" }
        return " (\(attempts.count) attempts: " + attempts.map(\.description).joined(separator: "; ") + ")"
    }
}

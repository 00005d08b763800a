import FoundationEssentials
import RestMapJSON

/// The records mapped from one response: per key path and in one flat list, plus the errors
/// of records that could not be mapped.
public struct MappingResult: Sendable {
    /// Records per response key path, in schema order (`""` is the whole body).
    public let keyPaths: [(keyPath: String, records: [Record])]
    /// Every root record, in schema order.
    public let records: [Record]
    /// One error per record that failed; the other records are still mapped.
    public let errors: [MappingError]
    /// The routing parameters the mapping saw (given, and matched from the path).
    public let routingParameters: [String: String]
    let graph: RecordGraph?

    /// The root records mapped at a key path.
    public subscript(keyPath: String) -> [Record] {
        keyPaths.first { $0.keyPath == keyPath }?.records ?? []
    }

    /// Every record of an entity in the result, nested ones included, in mapping order.
    public func records(of entity: String) -> [Record] {
        guard let graph, let index = graph.plan.entityIndex[entity] else { return [] }
        return graph.records.indices.filter { graph.records[$0].entity == index }.map { Record(graph: graph, index: $0) }
    }

    /// `true` when nothing was mapped (an empty body, or key paths holding nothing).
    public var isEmpty: Bool { records.isEmpty }
}

/// A record that could not be mapped, and where.
public struct MappingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Where in the body: `services[3].current-event.timestamp`.
    public var path: String
    /// The entity being mapped.
    public var entity: String
    /// The attribute that failed, if one did.
    public var attribute: String?

    public var description: String {
        "\(path.isEmpty ? "(body)" : path): \(entity)\(attribute.map { ".\($0)" } ?? ""): \(message)"
    }
}

/// One message of a mapped error response.
public struct ErrorMessage: Sendable, Hashable {
    public var message: String
    public var code: Value?
}

/// Why a response could not be mapped at all.
public enum MappingFailure: Error, Sendable, CustomStringConvertible {
    /// The body is not valid JSON.
    case malformedBody(JSONParseError)
    /// The body could not be decoded from its media type.
    case undecodableBody(mediaType: String, reason: String)
    /// No response descriptor matches the method, path and status.
    case noResponseDescriptor(method: String, path: String, status: Int)
    /// Descriptors matched but none of their key paths held anything (RestKit's
    /// "No mappable object representations were found").
    case noMappableRepresentations(searchedKeyPaths: [String], topLevelKeys: [String], bodySummary: String)
    /// An error status whose body mapped to messages (joined by ", ").
    case errorResponse(status: Int, message: String, errors: [ErrorMessage])
    /// An error status whose body mapped nothing.
    case unprocessableErrorResponse(status: Int, body: [UInt8])
    /// `strict` mapping and some records failed.
    case invalidRecords([MappingError])

    public var description: String {
        switch self {
        case .malformedBody(let error):
            "malformed JSON body at line \(error.line), column \(error.column) (byte \(error.offset)): \(error.message)"
        case .undecodableBody(let mediaType, let reason):
            "cannot decode the \(mediaType) body: \(reason)"
        case .noResponseDescriptor(let method, let path, let status):
            "no response descriptor matches \(method) \(path) (status \(status))"
        case .noMappableRepresentations(let searched, _, let summary):
            "No mappable object representations were found at the key paths searched: "
                + searched.map { $0.isEmpty ? "(the whole body)" : $0 }.joined(separator: ", ")
                + "; " + summary
        case .errorResponse(_, let message, _):
            message
        case .unprocessableErrorResponse(let status, _):
            "unprocessable error response (\(status))"
        case .invalidRecords(let errors):
            "\(errors.count) record(s) failed to map: " + errors.map(\.description).joined(separator: "; ")
        }
    }
}

import FoundationEssentials
import RestMapJSON
import RestMapSchema

/// A response with what the schema says of it, worked out once before any strategy maps it: the
/// path descriptors match against, the descriptors that apply, the routing parameters and the
/// metadata its records map with.
struct MatchedResponse {
    var response: Response
    /// The path relative to the schema's `baseURL` (`Mapper.matchedPath(of:)`).
    var path: String
    /// The descriptors that apply, one per key path, in schema order, with the parameters their
    /// path patterns extracted.
    var descriptors: [(descriptor: ResponseDescriptor, parameters: [String: String])]
    /// The given parameters, then those the descriptors' path patterns extract.
    var parameters: [String: String]
    var metadata: Metadata

    var isError: Bool { response.status >= 400 }
}

/// The media type a body file's extension implies when no `Content-Type` is given: `.csv` files
/// are `text/csv` (decoded by the csv plugin); everything else is read as JSON.
public enum BodyMediaType {
    public static let csv = "text/csv"

    public static func isCSV(_ path: String) -> Bool { path.lowercased().hasSuffix(".csv") }

    /// `text/csv` for a `.csv` file, else `nil` (JSON).
    public static func implied(byExtensionOf path: String?) -> String? {
        path.map(isCSV) == true ? csv : nil
    }

    /// Whether a media type is JSON: `application/json`, `text/json` or any `+json` type.
    public static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json")
    }
}

extension Mapper {
    /// What the schema says of a response (`MatchedResponse`).
    func match(_ response: Response) -> MatchedResponse {
        let path = matchedPath(of: response)
        let descriptors = matchingDescriptors(method: response.method, path: path, status: response.status)
        let parameters = routingParameters(of: response, matched: descriptors)
        return MatchedResponse(response: response, path: path, descriptors: descriptors, parameters: parameters,
                               metadata: metadata(of: response, path: path, parameters: parameters))
    }

    /// The body as a JSON document, through a plugin's body decoder for non-JSON media types.
    func parse(_ response: Response, options: JSONParsingOptions = .init()) throws(MappingFailure) -> JSONDocument {
        var bytes = response.body
        if let mediaType = nonJSONMediaType(of: response) {
            if let decoder = plan.plugins.bodyDecoder(forMediaType: mediaType) {
                do { bytes = try decoder.decode(bytes, [:]) } catch {
                    throw .undecodableBody(mediaType: mediaType, reason: "\(error)")
                }
            } else if !["text/plain", "application/octet-stream"].contains(mediaType) {
                throw .undecodableBody(mediaType: mediaType, reason: "no loaded plugin decodes \(mediaType) (is its plugin in 'plugins:'?)")
            }
        }
        do { return try JSONDocument(bytes: bytes, options: options) } catch { throw .malformedBody(error) }
    }

    /// The response's media type when it is given and is not JSON.
    func nonJSONMediaType(of response: Response) -> String? {
        guard let mediaType = response.header("Content-Type")?.split(separator: ";").first?
            .trimmingWhitespace().lowercased(), !BodyMediaType.isJSON(mediaType) else { return nil }
        return mediaType
    }

    /// Whether a plugin decodes the body (so the parsed document is not the body's own text).
    func isDecoded(_ response: Response) -> Bool {
        nonJSONMediaType(of: response).flatMap(plan.plugins.bodyDecoder(forMediaType:)) != nil
    }

    /// The path descriptors match: the URL that answered when known, else the request's path.
    func matchedPath(of response: Response) -> String {
        relativePath(response.responseURL ?? response.path)
    }

    /// The request path relative to `baseURL`: scheme and host dropped, the base path stripped.
    func relativePath(_ raw: String) -> String {
        var path = Substring(raw)
        if let scheme = path.firstRange(of: "://") {
            let afterHost = path[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? path.endIndex
            path = path[afterHost...]
        }
        if !plan.basePath.isEmpty, path.hasPrefix(plan.basePath) {
            let rest = path.dropFirst(plan.basePath.count)
            if rest.isEmpty || rest.first == "/" || rest.first == "?" { path = rest }
        }
        if path.isEmpty || path.first == "?" { return "/" + path }
        return String(path)
    }

    /// The descriptors that apply, one per key path (the most specific, then the later), in schema order.
    func matchingDescriptors(method: String, path: String, status: Int) -> [(descriptor: ResponseDescriptor, parameters: [String: String])] {
        var chosen: [String: (position: Int, specificity: (Int, Int), parameters: [String: String])] = [:]
        for (position, descriptor) in plan.schema.responses.enumerated() {
            guard descriptor.status.contains(status) else { continue }
            if let wanted = descriptor.method, wanted != method { continue }
            var parameters: [String: String] = [:]
            if let pattern = descriptor.path {
                guard let matched = pattern.match(path[...]) else { continue }
                parameters = matched
            }
            let specificity = (descriptor.method == nil ? 0 : 1, descriptor.path?.literalLength ?? -1)
            let key = descriptor.keyPath?.text ?? ""
            if let current = chosen[key], current.specificity > specificity { continue }
            chosen[key] = (position, specificity, parameters)
        }
        return chosen.values.sorted { $0.position < $1.position }.map { (plan.schema.responses[$0.position], $0.parameters) }
    }

    /// The metadata a response maps with (`@metadata`): its request and response, the route its
    /// path matches, and its routing parameters (`routingParameters(of:matched:)` unless given).
    func metadata(of response: Response, path: String? = nil, parameters: [String: String]? = nil) -> Metadata {
        // Found when a key path first reads the metadata; without the body, which it does not need.
        var head = response
        head.body = []
        return Metadata(request: head, schema: plan.schema) { [self, head] in
            let path = path ?? matchedPath(of: head)
            let parameters = parameters ?? routingParameters(
                of: head, matched: matchingDescriptors(method: head.method, path: path, status: head.status))
            return (routeName(method: head.method, path: path), parameters)
        }
    }

    /// The given parameters, then those the matched descriptors' path patterns extract.
    func routingParameters(of response: Response, matched: [(descriptor: ResponseDescriptor, parameters: [String: String])]) -> [String: String] {
        var parameters = response.parameters
        for (_, extracted) in matched { parameters.merge(extracted) { given, _ in given } }
        return parameters
    }

    func routeName(method: String, path: String) -> String? {
        plan.schema.routes.first { $0.method == method && $0.pattern.match(path[...]) != nil }?.name
    }
}

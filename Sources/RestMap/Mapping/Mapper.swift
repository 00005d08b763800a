import Foundation
import RestMapJSON
import RestMapPlugins
import RestMapSchema

extension MappingPlan {
    /// The same schema compiled into a plan of its own, for another thread; this plan when
    /// compiling fails.
    func compiledAgain() -> MappingPlan {
        (try? MappingPlan(schema: schema, plugins: plugins)) ?? self
    }
}

/// The interpreter: maps responses to records and records to request bodies, as a schema says.
///
/// Build one per schema and share it: it is immutable and `Sendable`, and `map` may run from
/// many tasks at once.
public struct Mapper: Sendable {
    let plan: MappingPlan

    /// Compiles a validated schema against the plugins that provide its transformers.
    public init(schema: Schema, plugins: PluginRegistry = PluginRegistry()) throws(SchemaCompilationError) {
        var registry = plugins
        registry.registerBuiltins()
        plan = try MappingPlan(schema: schema, plugins: registry)
    }

    init(plan: MappingPlan) {
        self.plan = plan
    }

    /// A mapper for another thread: the same schema compiled into a plan of its own, so threads
    /// mapping side by side do not update the reference counts of one shared plan (measured: that
    /// sharing cost a fifth more CPU on two cores). This mapper itself when compiling fails.
    func withOwnPlan() -> Mapper {
        Mapper(plan: plan.compiledAgain())
    }

    /// The schema this mapper interprets.
    public var schema: Schema { plan.schema }

    /// Routes and path interpolation of the schema.
    public var router: Router { Router(plan: plan) }

    /// Maps a response.
    ///
    /// - Returns: the records, per key path and flat, with an error for each record that failed.
    /// - Throws: `MappingFailure` when the body is malformed, nothing was mappable, the response
    ///   is an error response, or (`strict`) any record failed.
    public func map(_ response: Response, options: MappingOptions = .init()) throws(MappingFailure) -> MappingResult {
        try mapAndKeepDocument(response, options: options, keepDocument: false).result
    }

    /// Maps a response and also returns the document it parsed (`nil` for an empty body, and
    /// unless `keepDocument` for a body mapped on several threads, which parse it in parts), so a
    /// dry run can walk the same (decoded) document instead of parsing the body again.
    func mapAndKeepDocument(_ response: Response, options: MappingOptions, keepDocument: Bool = true) throws(MappingFailure)
        -> (result: MappingResult, document: JSONDocument?) {
        let path = matchedPath(of: response)
        let matched = matchingDescriptors(method: response.method, path: path, status: response.status)
        let parameters = routingParameters(of: response, matched: matched)
        let metadata = self.metadata(of: response, path: path, parameters: parameters)
        let isError = response.status >= 400

        if response.body.allSatisfy(isJSONWhitespace) {
            if isError { throw .unprocessableErrorResponse(status: response.status, body: response.body) }
            return (MappingResult(keyPaths: [], records: [], errors: [], routingParameters: parameters, graph: nil), nil)
        }
        if !keepDocument, options.jobs > 1, options.maximumValueCount == .max, !isError, matched.count == 1, nonJSONMediaType(of: response) == nil,
           let descriptor = matched.first?.descriptor, descriptor.keyPath == nil, descriptor.keyedBy.isEmpty,
           // Total: MappingPlan.init refuses a descriptor naming an undefined entity.
           let (session, roots) = mapArrayInParallel(response.body, entity: plan.entityIndex[descriptor.entity.value]!,
                                                     metadata: metadata, jobs: options.jobs) {
            if options.strict, !session.errors.isEmpty { throw .invalidRecords(session.errors) }
            let graph = RecordGraph(plan: plan, records: session.records)
            let records = roots.map { Record(graph: graph, index: $0) }
            return (MappingResult(keyPaths: [("", records)], records: records, errors: session.errors,
                                  routingParameters: parameters, graph: graph), nil)
        }
        let document = try parse(response, options: JSONParsingOptions(maximumValueCount: options.maximumValueCount))
        let session = MappingSession(plan: plan, root: document.root, metadata: metadata)

        if isError {
            let messages = errorMessages(document.root, status: response.status, session: session)
            if !messages.isEmpty {
                throw .errorResponse(status: response.status, message: messages.map(\.message).joined(separator: ", "), errors: messages)
            }
            if matched.isEmpty { throw .unprocessableErrorResponse(status: response.status, body: response.body) }
        }
        guard !matched.isEmpty else {
            throw .noResponseDescriptor(method: response.method, path: path, status: response.status)
        }

        var perKeyPath: [(keyPath: String, records: [Int])] = []
        var contributed = false
        for (descriptor, _) in matched {
            let keyPathText = descriptor.keyPath?.text ?? ""
            session.scope.rootKeyPath = keyPathText
            session.scope.representations = [document.root]
            let found = descriptor.keyPath.map { KeyPathEvaluator.evaluate($0, from: document.root, scope: session.scope) } ?? .node(document.root)
            session.scope.representations = []
            guard Self.holdsRepresentations(found) else { continue }
            contributed = true
            // Total: MappingPlan.init refuses a descriptor naming an undefined entity.
            let entity = plan.entityIndex[descriptor.entity.value]!
            let keyedBy = descriptor.keyedBy.compactMap { plan.entities[entity].attributeSlots[$0.value] }
            session.path = keyPathText.isEmpty ? [] : [.key(keyPathText)]
            let roots = session.mapRoot(found, entity: entity, keyedBy: keyedBy)
            if let existing = perKeyPath.firstIndex(where: { $0.keyPath == keyPathText }) {
                perKeyPath[existing].records += roots
            } else {
                perKeyPath.append((keyPathText, roots))
            }
        }
        if !contributed {
            let searched = matched.map { $0.descriptor.keyPath?.text ?? "" }
            throw .noMappableRepresentations(searchedKeyPaths: searched, topLevelKeys: document.root.keys,
                                             bodySummary: Self.summary(of: document.root))
        }
        session.connect()
        if options.strict, !session.errors.isEmpty { throw .invalidRecords(session.errors) }

        let graph = RecordGraph(plan: plan, records: session.records)
        let keyPaths = perKeyPath.map { entry in (entry.keyPath, entry.records.map { Record(graph: graph, index: $0) }) }
        let result = MappingResult(keyPaths: keyPaths, records: keyPaths.flatMap(\.1), errors: session.errors,
                                   routingParameters: parameters, graph: graph)
        return (result, document)
    }

    // MARK: Steps

    /// Whether what a descriptor's key path found is something to map (language §13, "What a
    /// descriptor finds"): an object, an array (an empty one is a legitimate empty collection) or
    /// any other value, which then fails as a record naming where. Nothing found, `null`, and a
    /// walk through an array that found nothing but `null` (or no element had the key) are not:
    /// when no descriptor finds anything, the mapping fails with "No mappable object representations".
    static func holdsRepresentations(_ found: Resolved) -> Bool {
        switch found {
        case .missing: false
        case .node(let node): !node.isNull
        case .nodes(let nodes): nodes.contains { !$0.isNull }
        case .value(let value): !value.isNull
        }
    }

    /// What the body is, for the "No mappable object representations" message.
    static func summary(of root: JSONNode) -> String {
        guard root.kind == .object else { return "the body is " + MappingSession.describe(root) }
        let keys = root.keys
        return keys.isEmpty ? "the body is an empty object" : "the body's top-level keys are: " + keys.joined(separator: ", ")
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
            .trimmingCharacters(in: .whitespaces).lowercased(), !Self.isJSON(mediaType) else { return nil }
        return mediaType
    }

    /// Whether a plugin decodes the body (so the parsed document is not the body's own text).
    func isDecoded(_ response: Response) -> Bool {
        nonJSONMediaType(of: response).flatMap(plan.plugins.bodyDecoder(forMediaType:)) != nil
    }

    static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json")
    }

    /// The path descriptors match: the URL that answered when known, else the request's path.
    func matchedPath(of response: Response) -> String {
        relativePath(response.responseURL ?? response.path)
    }

    /// The request path relative to `baseURL`: scheme and host dropped, the base path stripped.
    func relativePath(_ raw: String) -> String {
        var path = Substring(raw)
        if let scheme = path.range(of: "://") {
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

    /// Messages of the error descriptors matching the status.
    private func errorMessages(_ root: JSONNode, status: Int, session: MappingSession) -> [ErrorMessage] {
        var messages: [ErrorMessage] = []
        for descriptor in plan.schema.errors where descriptor.status.contains(status) {
            session.scope.representations = [root]
            let base = descriptor.keyPath.map { KeyPathEvaluator.evaluate($0, from: root, scope: session.scope) } ?? .node(root)
            let items: [Resolved] = base.items ?? [base]
            for item in items {
                guard case .node(let node) = item else { continue }
                session.scope.representations = [root, node]
                let found = KeyPathEvaluator.evaluate(descriptor.message, in: session.scope).value
                let code = descriptor.code.flatMap { KeyPathEvaluator.evaluate($0, in: session.scope).value }
                for text in Self.texts(found) { messages.append(ErrorMessage(message: text, code: code)) }
            }
        }
        session.scope.representations = []
        return messages
    }

    private static func texts(_ value: Value?) -> [String] {
        switch value {
        case .string(let text)?: [text]
        case .array(let items)?: items.flatMap { texts($0) }
        case nil, .null?: []
        case let other?: [ValueText.short(other)]
        }
    }
}

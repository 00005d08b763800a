import RestMapJSON
import RestMapSchema

/// The one-thread strategy: the body is parsed into one document, each matching descriptor's key
/// path is mapped into one session, and `connect` relationships are resolved across every record.
/// It maps every response: error responses, keyed collections, several descriptors, bodies a plugin
/// decodes, and whatever `SplitBodyMapping` declines.
struct WholeDocumentMapping: MappingStrategy {
    let mapper: Mapper

    func map(_ response: MatchedResponse, options: MappingOptions) throws(MappingFailure) -> MappingResult {
        try mapKeepingDocument(response, options: options).result
    }

    /// Maps the response and also returns the document it parsed, so a dry run or an extraction
    /// walks the same (decoded) document instead of parsing the body again.
    func mapKeepingDocument(_ response: MatchedResponse, options: MappingOptions) throws(MappingFailure)
        -> (result: MappingResult, document: JSONDocument) {
        let plan = mapper.plan
        let profile = options.profile
        let document = try profile.measure(.parse) { () throws(MappingFailure) in
            try mapper.parse(response.response, options: JSONParsingOptions(maximumValueCount: options.maximumValueCount))
        }
        let session = MappingSession(plan: plan, root: document.root, metadata: response.metadata)
        let status = response.response.status

        if response.isError {
            let messages = errorMessages(document.root, status: status, session: session)
            if !messages.isEmpty {
                throw .errorResponse(status: status, message: messages.map(\.message).joined(separator: ", "), errors: messages)
            }
            if response.descriptors.isEmpty { throw .unprocessableErrorResponse(status: status, body: response.response.body) }
        }
        guard !response.descriptors.isEmpty else {
            throw .noResponseDescriptor(method: response.response.method, path: response.path, status: status)
        }

        var perKeyPath: [(keyPath: String, records: [Int])] = []
        var contributed = false
        profile.measure(.map) {
            for (descriptor, _) in response.descriptors {
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
            if contributed { session.connect() }
        }
        if !contributed {
            let searched = response.descriptors.map { $0.descriptor.keyPath?.text ?? "" }
            throw .noMappableRepresentations(searchedKeyPaths: searched, topLevelKeys: document.root.keys,
                                             bodySummary: Self.summary(of: document.root))
        }
        if options.strict, !session.errors.isEmpty { throw .invalidRecords(session.errors) }

        let graph = RecordGraph(plan: plan, records: session.records)
        let keyPaths = perKeyPath.map { entry in (entry.keyPath, entry.records.map { Record(graph: graph, index: $0) }) }
        let result = MappingResult(keyPaths: keyPaths, records: keyPaths.flatMap(\.1), errors: session.errors,
                                   routingParameters: response.parameters, graph: graph)
        return (result, document)
    }

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

    /// Messages of the error descriptors matching the status.
    private func errorMessages(_ root: JSONNode, status: Int, session: MappingSession) -> [ErrorMessage] {
        var messages: [ErrorMessage] = []
        for descriptor in mapper.plan.schema.errors where descriptor.status.contains(status) {
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

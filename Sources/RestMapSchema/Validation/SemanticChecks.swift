/// Checks that need the whole typed model: references between entities, attributes named by
/// identification and connections, route parameters, ambiguous descriptors, unused entities.
struct SemanticChecks {
    let schema: Schema
    let suggester: Suggester
    /// Each entity by name, and the attribute names of each (looked up once per reference).
    let entitiesByName: [String: Entity]
    let attributeNames: [String: Set<String>]

    init(schema: Schema, suggester: Suggester) {
        self.schema = schema
        self.suggester = suggester
        var entitiesByName: [String: Entity] = [:]
        for entity in schema.entities where entitiesByName[entity.name] == nil { entitiesByName[entity.name] = entity }
        self.entitiesByName = entitiesByName
        attributeNames = entitiesByName.mapValues { Set($0.attributes.map(\.name)) }
    }

    /// The suggestion among an entity's attribute names.
    func attributeHint(_ name: String, of entity: Entity) -> String {
        suggester.hint(for: name, in: "attributes of \(entity.name)", entity.attributes.map(\.name))
    }

    var isCancelled: Bool { suggester.cancellation?.isCancelled == true }

    /// The pairs of matcher conditions compared so far (see `shadowCheckLimit`).
    let shadowChecks = SuggestionBudget(limit: SemanticChecks.shadowCheckLimit)

    func run(into diagnostics: inout [Diagnostic]) {
        var used = Set<String>()
        var shadowChecksExhausted = false
        func reference(_ name: Located<String>, _ what: String) -> Entity? {
            used.insert(name.value)
            guard let entity = entitiesByName[name.value] else {
                let hint = suggester.hint(for: name.value, in: "entities", schema.entities.map(\.name))
                diagnostics.append(.error("\(what) refers to undefined entity '\(name.value)'\(hint)", at: name.location))
                return nil
            }
            return entity
        }
        func attribute(_ name: Located<String>, of entity: Entity, _ what: String) {
            guard entity.dynamic == nil, attributeNames[entity.name]?.contains(name.value) != true else { return }
            diagnostics.append(.error(
                "\(what) names '\(name.value)', which entity '\(entity.name)' does not map\(attributeHint(name.value, of: entity))",
                at: name.location))
        }

        for entity in schema.entities {
            if isCancelled { return }
            for name in entity.identifiedBy where entity.identificationIsExplicit {
                attribute(name, of: entity, "identifiedBy")
            }
            for relationship in entity.relationships {
                guard let target = reference(relationship.entity, "relationship '\(relationship.name)'") else { continue }
                for connection in relationship.connections {
                    attribute(connection.local, of: entity, "connect of '\(relationship.name)'")
                    attribute(connection.target, of: target, "connect of '\(relationship.name)'")
                }
                if let route = relationship.route {
                    warnUnsuppliedParameters(route.pattern, of: entity, at: relationship.location, into: &diagnostics)
                }
                for name in relationship.keyedBy { attribute(name, of: target, "keyedBy") }
            }
            if let dynamic = entity.dynamic {
                // Cases of `by:` test one key path for distinct values: none can shadow another.
                let byCases = dynamic.matchers.allSatisfy { $0.caseValue != nil }
                var earlierConditions = 0
                for (index, matcher) in dynamic.matchers.enumerated() {
                    _ = reference(matcher.entity, matcher.label)
                    defer { earlierConditions += max(1, matcher.conditions.count) }
                    guard !byCases, !shadowChecksExhausted else { continue }
                    let earlierMatchers = dynamic.matchers[..<index]
                    guard shadowChecks.take(earlierConditions * max(1, matcher.conditions.count)) else {
                        shadowChecksExhausted = true
                        diagnostics.append(.warning(
                            "matchers from here on were not checked for ones that can never match: the schema has more than "
                                + "\(Self.shadowCheckLimit) pairs of conditions to compare",
                            at: matcher.location))
                        continue
                    }
                    if let earlier = earlierMatchers.first(where: { Self.shadows($0, matcher) }) {
                        diagnostics.append(.warning(
                            "this matcher can never match: the one at line \(earlier.location.line) matches everything it matches, and comes first",
                            at: matcher.location))
                    }
                }
                if case .entity(let fallback) = dynamic.otherwise { _ = reference(fallback, "'otherwise'") }
            }
            for route in entity.routes {
                warnUnsuppliedParameters(route.pattern, of: entity, at: route.location, into: &diagnostics)
            }
        }

        // The last response covering each status code, per method, path and key path: the latest
        // earlier descriptor that overlaps one is found without comparing it with every other.
        var lastCovering: [ResponseSlot: [Int: Int]] = [:]
        for (index, response) in schema.responses.enumerated() {
            if isCancelled { return }
            let slot = ResponseSlot(method: response.method, path: response.path?.text, keyPath: response.keyPath?.text)
            var codes = lastCovering[slot] ?? [:]
            let covered = response.status.ranges.flatMap { Array($0.clamped(to: 100...599)) }
            let latest = covered.compactMap { codes[$0] }.max()
            for code in covered { codes[code] = index }
            lastCovering[slot] = codes
            guard let entity = reference(response.entity, "response") else { continue }
            for name in response.keyedBy { attribute(name, of: entity, "keyedBy") }
            if let latest {
                diagnostics.append(.warning(
                    "response descriptor is ambiguous with the one at line \(schema.responses[latest].location.line) (same method, path and key path, overlapping status); the later one wins",
                    at: response.location))
            }
        }
        for request in schema.requests {
            guard let entity = reference(request.entity, "request") else { continue }
            for item in request.attributes ?? [] { attribute(item.attribute, of: entity, "request attribute") }
            for name in request.keyedBy { attribute(name, of: entity, "keyedBy") }
        }
        checkStore(reference: { _ = reference($0, $1) }, attribute: attribute)
        let syncDiagnostics = checkSync(reference: reference, attribute: attribute)
        diagnostics += syncDiagnostics

        // An entity reached from a used one is used too.
        var reachable = used
        var queue = Array(used)
        while let name = queue.popLast() {
            guard let entity = entitiesByName[name] else { continue }
            let targets = entity.relationships.map(\.entity.value)
                + (entity.dynamic?.matchers.map(\.entity.value) ?? [])
                + (entity.dynamic.flatMap { if case .entity(let e) = $0.otherwise { [e.value] } else { nil } } ?? [])
            for target in targets where reachable.insert(target).inserted { queue.append(target) }
        }
        for entity in schema.entities where !reachable.contains(entity.name) && !used.contains(entity.name) {
            diagnostics.append(.warning(
                "entity '\(entity.name)' is never used: no response, relationship, request or dynamic case refers to it",
                at: entity.location))
        }
    }

    /// Whether every representation `later` matches is matched by `earlier` too: each of
    /// `earlier`'s conditions is implied by a condition of `later` on the same key path.
    static func shadows(_ earlier: DynamicMatcher, _ later: DynamicMatcher) -> Bool {
        earlier.conditions.allSatisfy { condition in
            later.conditions.contains { $0.keyPath == condition.keyPath && implies($0.test, condition.test) }
        }
    }

    /// Whether a value passing test `a` always passes test `b`.
    static func implies(_ a: DynamicCondition.Test, _ b: DynamicCondition.Test) -> Bool {
        switch (a, b) {
        case (.equals(let values), .equals(let allowed)): values.allSatisfy(allowed.contains)
        case (.equals(let values), .present(true)): !values.contains(nil)
        case (.equals(let values), .present(false)): values.allSatisfy { $0 == nil }
        case (.type(let type), .present(let present)): (type != .null) == present
        case (.equals(let values), .type(.null)): values.allSatisfy { $0 == nil }
        default: a == b
        }
    }

    /// Entity and relationship route parameters must come from the record's attributes.
    func warnUnsuppliedParameters(_ pattern: PathPattern, of entity: Entity, at location: SourceLocation, into diagnostics: inout [Diagnostic]) {
        for name in pattern.parameterNames where attributeNames[entity.name]?.contains(name) != true {
            diagnostics.append(.warning(
                "route parameter ':\(name)' is not an attribute of '\(entity.name)'; it must be passed explicitly\(attributeHint(name, of: entity))",
                at: location))
        }
    }

    /// What two response descriptors must share to be ambiguous, besides an overlapping status.
    struct ResponseSlot: Hashable {
        var method: String?
        var path: String?
        var keyPath: String?
    }

    /// The most pairs of conditions compared to find matchers that can never match.
    static let shadowCheckLimit = 1_000_000

    /// The `sync:` resources: routes that exist and are GETs, identified entities, parents that
    /// fill every route parameter, cursor attributes, and an order of resources without a cycle.
    func checkSync(reference: (Located<String>, String) -> Entity?, attribute: (Located<String>, Entity, String) -> Void) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        guard !schema.sync.isEmpty else { return [] }
        var routesByName: [String: NamedRoute] = [:]
        for route in schema.routes where routesByName[route.name] == nil { routesByName[route.name] = route }
        for resource in schema.sync {
            if isCancelled { break }
            let entity = reference(resource.entity, "sync resource '\(resource.name)'")
            if let entity, entity.identifiedBy.isEmpty {
                diagnostics.append(.error(
                    "sync resource '\(resource.name)' keeps entity '\(entity.name)', which has no identifiedBy: a sync upserts by identity, so re-read records never repeat",
                    at: resource.entity.location))
            }
            if let entity, let name = resource.cursor?.attribute { attribute(name, entity, "cursor") }
            guard let route = routesByName[resource.route.value] else {
                let hint = suggester.hint(for: resource.route.value, in: "routes", schema.routes.map(\.name))
                diagnostics.append(.error("no route named '\(resource.route.value)'\(hint)", at: resource.route.location))
                continue
            }
            if route.method != "GET" {
                diagnostics.append(.error("route '\(route.name)' is a \(route.method); a sync resource reads with a GET route",
                                          at: resource.route.location))
            }
            guard let parent = resource.parent else {
                if let first = route.pattern.parameterNames.first {
                    diagnostics.append(.error(
                        "route '\(route.name)' has the parameter ':\(first)'; give 'parent' (the entity whose records fill it)",
                        at: resource.route.location))
                }
                continue
            }
            if parent.entity.value == resource.entity.value, parent.depth == nil {
                diagnostics.append(.error(
                    "sync resource '\(resource.name)' fans out over its own entity '\(parent.entity.value)': give 'depth', the most levels to go down",
                    at: parent.entity.location))
            }
            guard let parentEntity = reference(parent.entity, "sync parent"), parentEntity.dynamic == nil else { continue }
            for (parameter, attributeName) in parent.parameters.sorted(by: { $0.key < $1.key }) {
                if !route.pattern.parameterNames.contains(parameter) {
                    diagnostics.append(.error("route '\(route.name)' has no parameter ':\(parameter)'", at: attributeName.location))
                }
                attribute(attributeName, parentEntity, "sync parent parameter")
            }
            for parameter in route.pattern.parameterNames where parent.parameters[parameter] == nil
                && attributeNames[parentEntity.name]?.contains(parameter) != true {
                diagnostics.append(.error(
                    "route parameter ':\(parameter)' has no value: entity '\(parentEntity.name)' has no attribute '\(parameter)'; map it in parent.parameters",
                    at: parent.entity.location))
            }
        }
        if let cycle = SyncOrder.cycle(in: schema.sync) {
            diagnostics.append(.error(
                "sync resources depend on each other in a cycle: " + cycle.prefix(10).map(\.name).joined(separator: " → ")
                    + (cycle.count > 10 ? " → … (\(cycle.count) resources)" : " → \(cycle[0].name)"),
                at: cycle[0].location))
        }
        return diagnostics
    }

    func checkStore(reference: (Located<String>, String) -> Void,
                    attribute: (Located<String>, Entity, String) -> Void) {
        guard let store = schema.store else { return }
        func entityKeys(_ section: String) {
            for pair in store[section]?.mapping ?? [] {
                guard let name = pair.key.scalarText else { continue }
                let located = Located(name, at: pair.key.location)
                reference(located, "store.\(section)")
                guard let entity = entitiesByName[name] else { continue }
                let attributeNodes = (pair.value.sequence ?? []) + (pair.value.mapping?.map(\.key) ?? [])
                    + (pair.value.stringValue != nil ? [pair.value] : [])
                for node in attributeNodes {
                    if let text = node.stringValue { attribute(Located(text, at: node.textLocation), entity, "store.\(section)") }
                }
            }
        }
        for section in ["search", "tombstone", "modifiedBy"] { entityKeys(section) }
        for orphan in store["orphans"]?.sequence ?? [] {
            guard let node = orphan["entity"], let name = node.stringValue else { continue }
            reference(Located(name, at: node.textLocation), "store.orphans")
        }
    }
}

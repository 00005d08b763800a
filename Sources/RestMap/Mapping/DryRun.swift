import FoundationEssentials
import RestMapJSON
import RestMapSchema

/// What a dry run of a schema against a sample body found (`restmap validate --sample`).
public struct DryRunReport: Sendable {
    /// The mapping, when the response mapped at all.
    public var result: MappingResult?
    /// Why the response could not be mapped, if it could not.
    public var failure: MappingFailure?
    /// Keys present in mapped representations that no attribute or relationship reads, in body order.
    public var unmappedKeys: [UnmappedKey]
    /// Attributes whose key path found nothing in any representation.
    public var emptySelections: [EmptySelection]

    /// A key of the body that nothing reads.
    public struct UnmappedKey: Sendable, Hashable {
        /// Where in the body: `services[].url`.
        public var path: String
        /// Byte offset of the key's value in the body; `nil` when a plugin decoded the body
        /// from another media type (the offset would point into the decoded JSON, not the body).
        public var byteOffset: Int?
    }

    /// An attribute that read nothing from any representation.
    public struct EmptySelection: Sendable, Hashable {
        public var entity: String
        public var attribute: String
        public var keyPath: String
        /// Where the attribute is defined in the schema.
        public var location: SourceLocation
        /// How many representations of the entity were read.
        public var representations: Int
    }

    /// Records that failed to map (failed coercions, missing required values).
    public var failedRecords: [MappingError] { result?.errors ?? [] }
}

extension Mapper {
    /// Maps a sample response and reports what the schema leaves unread or cannot read.
    public func dryRun(_ response: Response) -> DryRunReport {
        var report = DryRunReport(result: nil, failure: nil, unmappedKeys: [], emptySelections: [])
        let document: JSONDocument
        do {
            let mapped = try mapKeepingDocument(response, options: MappingOptions())
            report.result = mapped.result
            guard let parsed = mapped.document else { return report }
            document = parsed
        } catch {
            report.failure = error
            return report
        }
        var coverage = Coverage(plan: plan, offsetsPointIntoBody: !isDecoded(response))
        for (descriptor, _) in matchingDescriptors(method: response.method, path: relativePath(response.path), status: response.status) {
            let found: Resolved
            if let keyPath = descriptor.keyPath {
                let scope = EvaluationScope(representations: [document.root], root: document.root,
                                            metadata: metadata(of: response),
                                            collectionIndex: nil, rootKeyPath: keyPath.text)
                found = KeyPathEvaluator.evaluate(keyPath, from: document.root, scope: scope)
            } else {
                found = .node(document.root)
            }
            guard let entity = plan.entityIndex[descriptor.entity.value] else { continue }
            let base = descriptor.keyPath?.text ?? ""
            let keyedBy = descriptor.keyedBy.compactMap { plan.entities[entity].attributeSlots[$0.value] }
            switch found {
            case .node(let node):
                coverage.visitFound(node, entity: entity, keyedBy: keyedBy[...], path: base)
            case .nodes(let nodes):
                for element in nodes { coverage.visitFound(element, entity: entity, keyedBy: keyedBy[...], path: base + "[]") }
            default:
                break
            }
        }
        // Relationships are walked before their parent's own keys: put the keys in body order.
        report.unmappedKeys = coverage.unmapped.enumerated()
            .sorted { ($0.element.byteOffset ?? 0, $0.offset) < ($1.element.byteOffset ?? 0, $1.offset) }
            .map(\.element)
        report.emptySelections = coverage.emptySelections()
        return report
    }
}

/// Walks mapped representations alongside the entities that read them.
struct Coverage {
    let plan: MappingPlan
    var unmapped: [DryRunReport.UnmappedKey] = []
    var seenUnmapped = Set<String>()
    /// Per entity and attribute slot: (representations seen, representations where the key path found something).
    var hits: [Int: [Int]] = [:]
    var visits: [Int: Int] = [:]
    /// Whether node offsets are offsets in the response body (not in a decoder's JSON).
    let offsetsPointIntoBody: Bool

    init(plan: MappingPlan, offsetsPointIntoBody: Bool) {
        self.plan = plan
        self.offsetsPointIntoBody = offsetsPointIntoBody
    }

    /// A tree of the plain keys an entity reads; `nil` children means the whole value is read.
    final class KeyTree {
        var children: [String: KeyTree] = [:]
        var readsWhole = false

        /// Marks the value at `keys` as read in full.
        func markRead(_ keys: [String]) {
            var current = self
            for key in keys {
                let next = current.children[key] ?? KeyTree()
                current.children[key] = next
                current = next
            }
            current.readsWhole = true
        }
    }

    /// Visits what a descriptor or relationship found: an array's elements, the values of a keyed
    /// object (`keyedBy`, one level per attribute; shown as `*` in paths, and the key attributes
    /// count as read), or one representation.
    mutating func visitFound(_ node: JSONNode, entity: Int, keyedBy: ArraySlice<Int>, path: String, depth: Int = 0,
                             keys: [Int] = []) {
        if node.kind == .array {
            for element in node.elements { visitFound(element, entity: entity, keyedBy: keyedBy, path: path + "[]", depth: depth, keys: keys) }
        } else if let slot = keyedBy.first, node.kind == .object {
            for member in node.members {
                visitFound(member.value, entity: entity, keyedBy: keyedBy.dropFirst(), path: path.isEmpty ? "*" : path + ".*",
                           depth: depth, keys: keys + [slot])
            }
        } else if keyedBy.isEmpty, node.kind == .object || !node.isNull && plan.entities[entity].readsSelf {
            visit(node, entity: entity, path: path, depth: depth, keyed: keys)
        }
    }

    mutating func visit(_ node: JSONNode, entity requested: Int, path: String, depth: Int = 0, keyed: [Int] = []) {
        guard depth < 32 else { return }
        var entity = requested
        if let dynamic = plan.entities[requested].dynamic {
            let picked = dynamic.pick { keyPath in
                RequestSerializer.inverseKeys(keyPath).flatMap { Self.resolve($0, in: node) }.map { .node($0) } ?? .missing
            }
            switch (picked, dynamic.otherwise) {
            case (let picked?, _), (nil, .entity(let picked)): entity = picked
            default: return
            }
        }
        let entityPlan = plan.entities[entity]
        visits[entity, default: 0] += 1
        var counts = hits[entity] ?? Array(repeating: 0, count: entityPlan.attributes.count)
        let tree = KeyTree()
        for (slot, attribute) in entityPlan.attributes.enumerated() {
            if attribute.source.isSelf { tree.readsWhole = true }
            if let keys = RequestSerializer.inverseKeys(attribute.source) {
                tree.markRead(keys)
                if Self.resolve(keys, in: node) != nil { counts[slot] += 1 }
            } else {
                counts[slot] += 1  // computed paths (@parent, operators, metadata) are not coverage
            }
        }
        for slot in keyed where slot < counts.count { counts[slot] += 1 }  // filled from the keys
        hits[entity] = counts
        for relationship in entityPlan.relationships {
            guard let source = relationship.source else { continue }
            if relationship.isSelfAggregate, !relationship.keyedBy.isEmpty {
                // Every key of the representation is a record of the target.
                tree.readsWhole = true
                visitFound(node, entity: relationship.target, keyedBy: relationship.keyedBy[...], path: path, depth: depth + 1)
                continue
            }
            if relationship.isSelfAggregate {
                visit(node, entity: relationship.target, path: path, depth: depth + 1)
                continue
            }
            guard let keys = RequestSerializer.inverseKeys(source) else { continue }
            tree.markRead(keys)
            guard let child = Self.resolve(keys, in: node) else { continue }
            let childPath = path.isEmpty ? source.text : "\(path).\(source.text)"
            visitFound(child, entity: relationship.target, keyedBy: relationship.keyedBy[...], path: childPath, depth: depth + 1)
        }
        report(node, against: tree, path: path)
    }

    private mutating func report(_ node: JSONNode, against tree: KeyTree, path: String) {
        guard !tree.readsWhole, node.kind == .object else { return }
        for (key, value) in node.members {
            let keyPath = path.isEmpty ? key : "\(path).\(key)"
            guard let child = tree.children[key] else {
                if seenUnmapped.insert(keyPath).inserted {
                    unmapped.append(DryRunReport.UnmappedKey(path: keyPath, byteOffset: offsetsPointIntoBody ? value.byteOffset : nil))
                }
                continue
            }
            report(value, against: child, path: keyPath)
        }
    }

    static func resolve(_ keys: [String], in node: JSONNode) -> JSONNode? {
        var current = node
        for key in keys {
            guard current.kind == .object, let next = current[key] else { return nil }
            current = next
        }
        return current
    }

    func emptySelections() -> [DryRunReport.EmptySelection] {
        var empty: [DryRunReport.EmptySelection] = []
        for (entity, counts) in hits.sorted(by: { $0.key < $1.key }) {
            let entityPlan = plan.entities[entity]
            for (slot, count) in counts.enumerated() where count == 0 {
                let attribute = entityPlan.attributes[slot]
                empty.append(DryRunReport.EmptySelection(
                    entity: entityPlan.name, attribute: attribute.name, keyPath: attribute.source.text,
                    location: attribute.location, representations: visits[entity] ?? 0))
            }
        }
        return empty
    }
}

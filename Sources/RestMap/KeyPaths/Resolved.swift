import FoundationEssentials
import RestMapJSON
import RestMapSchema

/// What a key path found: nothing, a node of the document, several nodes (a path walked
/// through an array), or a computed value (an operator's result, metadata).
enum Resolved {
    case missing
    case node(JSONNode)
    case nodes([JSONNode])
    case value(Value)

    /// As a value (nodes are materialized).
    var value: Value? {
        switch self {
        case .missing: nil
        case .node(let node): Value(json: node)
        case .nodes(let nodes): .array(nodes.map(Value.init(json:)))
        case .value(let value): value
        }
    }

    /// The items of an array-like result (elements of an array node, or the list of nodes).
    var items: [Resolved]? {
        switch self {
        case .missing: nil
        case .node(let node): node.kind == .array ? node.elements.map { .node($0) } : nil
        case .nodes(let nodes): nodes.map { .node($0) }
        case .value(.array(let values)): values.map { .value($0) }
        case .value: nil
        }
    }

    var isNull: Bool {
        switch self {
        case .node(let node): node.isNull
        case .value(.null): true
        default: false
        }
    }
}

/// Where a key path is evaluated: the representation being mapped and its surroundings.
struct EvaluationScope {
    /// Enclosing representations, innermost last; the last one is the representation itself.
    var representations: [JSONNode]
    var root: JSONNode
    var metadata: Metadata
    /// Index of the representation within its source array; `nil` inside a to-one.
    var collectionIndex: Int?
    /// The key path of the response descriptor being mapped.
    var rootKeyPath: String

    var current: JSONNode { representations[representations.count - 1] }
}

/// Evaluates key paths (language section 3).
enum KeyPathEvaluator {
    static func evaluate(_ path: MappingKeyPath, in scope: EvaluationScope) -> Resolved {
        evaluate(path.segments[...], from: .node(scope.current), scope: scope)
    }

    /// Evaluates from an explicit starting node (a response descriptor's key path from the root).
    static func evaluate(_ path: MappingKeyPath, from node: JSONNode, scope: EvaluationScope) -> Resolved {
        evaluate(path.segments[...], from: .node(node), scope: scope)
    }

    private static func evaluate(_ segments: ArraySlice<MappingKeyPath.Segment>, from start: Resolved, scope: EvaluationScope) -> Resolved {
        var cursor = start
        var index = segments.startIndex
        var parentDepth = 0
        while index < segments.endIndex {
            let segment = segments[index]
            index += 1
            switch segment {
            case .key(let key, let arrayIndex):
                cursor = member(key, arrayIndex, of: cursor)
            case .selfReference:
                continue
            case .root:
                cursor = .node(scope.root)
            case .parent:
                parentDepth += 1
                let position = scope.representations.count - 1 - parentDepth
                cursor = position >= 0 ? .node(scope.representations[position]) : .missing
            case .metadata:
                return scope.metadata.lookup(Array(segments[index...]), scope: scope)
            case .collection(let op):
                return apply(op, to: cursor, rest: segments[index...], scope: scope)
            }
            if case .missing = cursor { return .missing }
        }
        return cursor
    }

    /// `key` of an object, element `arrayIndex` of an array, or `key` of every element of an array.
    private static func member(_ key: String, _ arrayIndex: Int?, of cursor: Resolved) -> Resolved {
        switch cursor {
        case .missing:
            return .missing
        case .node(let node):
            switch node.kind {
            case .object:
                return node[key].map { .node($0) } ?? .missing
            case .array:
                if let arrayIndex { return node[arrayIndex].map { .node($0) } ?? .missing }
                var found: [JSONNode] = []
                for element in node.elements { if let value = element[key] { found.append(value) } }
                return .nodes(found)
            default:
                return .missing
            }
        case .nodes(let nodes):
            if let arrayIndex { return arrayIndex < nodes.count ? .node(nodes[arrayIndex]) : .missing }
            return .nodes(nodes.compactMap { $0[key] })
        case .value(let value):
            switch value {
            case .object: return value[key].map { .value($0) } ?? .missing
            case .array(let items):
                if let arrayIndex { return arrayIndex < items.count ? .value(items[arrayIndex]) : .missing }
                return .value(.array(items.compactMap { $0[key] }))
            default: return .missing
            }
        }
    }

    private static func apply(_ op: CollectionOperator, to cursor: Resolved, rest: ArraySlice<MappingKeyPath.Segment>, scope: EvaluationScope) -> Resolved {
        guard let items = cursor.items else { return cursor.isNull ? .value(.null) : .missing }
        func continued(_ item: Resolved) -> Resolved { rest.isEmpty ? item : evaluate(rest, from: item, scope: scope) }
        switch op {
        case .count:
            return .value(.integer(Int64(items.count)))
        case .first:
            return items.first.map(continued) ?? .missing
        case .last:
            return items.last.map(continued) ?? .missing
        case .flatten:
            let flat = items.flatMap { $0.items ?? [$0] }
            return .value(.array(flat.compactMap { continued($0).value }))
        case .distinct:
            var seen = Set<Value>()
            var distinct: [Value] = []
            for item in items {
                guard let value = continued(item).value else { continue }
                if seen.insert(value).inserted { distinct.append(value) }
            }
            return .value(.array(distinct))
        case .sum, .avg, .min, .max:
            let values = items.compactMap { continued($0).value }.filter { !$0.isNull }
            return .value(aggregate(op, values))
        }
    }

    /// Sum, average, minimum or maximum, computed exactly over decimals; an empty list sums
    /// to 0 and has no average, minimum or maximum (null).
    private static func aggregate(_ op: CollectionOperator, _ values: [Value]) -> Value {
        if op == .min || op == .max, values.contains(where: { JSONValues.decimal($0) == nil }) {
            let strings = values.compactMap { $0.stringValue }
            let pick = op == .min ? strings.min() : strings.max()
            return pick.map(Value.string) ?? .null
        }
        let numbers = values.compactMap(JSONValues.decimal)
        let allIntegers = values.allSatisfy { if case .integer = $0 { true } else { false } }
        switch op {
        case .sum:
            let sum = numbers.reduce(Decimal(0), +)
            return allIntegers ? integerOrDecimal(sum) : .decimal(sum)
        case .avg:
            guard !numbers.isEmpty else { return .null }
            return .decimal(numbers.reduce(Decimal(0), +) / Decimal(numbers.count))
        case .min, .max:
            guard let pick = op == .min ? numbers.min() : numbers.max() else { return .null }
            return allIntegers ? integerOrDecimal(pick) : .decimal(pick)
        default:
            return .null
        }
    }

    private static func integerOrDecimal(_ decimal: Decimal) -> Value {
        if let integer = Int64(decimal.description) { return .integer(integer) }
        return .decimal(decimal)
    }
}

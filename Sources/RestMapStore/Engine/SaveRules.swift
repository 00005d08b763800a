import Foundation
import RestMap
import RestMapJSON
import RestMapSchema

/// The decisions of a save that do not depend on the database: which orphan rules apply, their
/// scopes, tombstones, and the roots a GET path returned.
extension StoreModel {
    /// Whether the response is a successful GET (its roots are remembered; orphans may go).
    package static func isSuccessfulGet(_ response: Response) -> Bool {
        response.method == "GET" && (200..<300).contains(response.status)
    }

    /// The orphan rules whose path matches the response's, with the path's parameters, that the
    /// save applies; and why matching rules were not applied (`orphansKept`), if one was not.
    package func orphanRules(for response: Response, isCompletePage: Bool, failures: Int)
        -> (apply: [(rule: StoreRules.OrphanRule, parameters: [String: String])], kept: String?) {
        let path = mapper.requestPath(response.path)
        let isSuccessfulGet = Self.isSuccessfulGet(response)
        var apply: [(StoreRules.OrphanRule, [String: String])] = []
        var kept: String?
        for rule in rules.orphans {
            guard let parameters = rule.path.match(path[...]) else { continue }
            guard isSuccessfulGet, isCompletePage, failures == 0 else {
                kept = !isSuccessfulGet ? "not a successful GET" : !isCompletePage ? "a partial page" : "\(failures) record(s) failed to map"
                continue
            }
            apply.append((rule, parameters))
        }
        return (apply, kept)
    }

    /// The `where` scope of an orphan rule as (column, typed value) pairs.
    package func orphanScope(_ rule: StoreRules.OrphanRule, parameters: [String: String], table: StoreLayout.Table) throws
        -> [(column: StoreLayout.Column, value: Value)] {
        var scope: [(column: StoreLayout.Column, value: Value)] = []
        for (attribute, scopeValue) in rule.scope {
            guard let column = table.columns.first(where: { $0.name == attribute }) else { continue }
            switch scopeValue {
            case .literal(let literal): scope.append((column, literal))
            case .parameter(let name):
                scope.append((column, try mapper.coerce(.string(parameters[name] ?? ""), toAttribute: attribute, of: rule.entity)))
            }
        }
        return scope
    }

    /// Whether a record's attribute values equal all of its entity's tombstone markers.
    package func isTombstone(_ record: RestMap.Record, table: StoreLayout.Table) -> Bool {
        guard let markers = rules.tombstone[table.entity], !markers.isEmpty else { return false }
        return markers.allSatisfy { marker in
            guard let slot = table.columnIndex(marker.attribute), slot < record.attributeValues.count,
                  let value = record.attributeValues[slot] else { return false }
            let kind = ColumnCoding.Kind(type: table.columns[slot].type)
            return ColumnCoding.stored(value, kind: kind) == ColumnCoding.stored(marker.value, kind: kind)
        }
    }

    /// The roots of a response as the store remembers them: `[["Entity", rm_id], …]`.
    package static func rootsJSON(_ roots: [(entity: String, rowID: Int64)]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for root in roots {
            writer.beginArray()
            writer.string(root.entity)
            writer.integer(root.rowID)
            writer.endArray()
        }
        writer.endArray()
        return writer.string
    }

    /// The `[[entity, rm_id], …]` roots text read back, checked against the store's entities;
    /// `bad` makes the error of a damaged value.
    package func roots(fromJSON text: String, bad: (String) -> any Error) throws -> [RecordGraphLoad.Key] {
        guard let document = try? JSONDocument(string: text) else { throw bad("not JSON") }
        guard document.root.kind == .array else { throw bad("not an array") }
        var keys: [RecordGraphLoad.Key] = []
        for (index, pair) in document.root.elements.enumerated() {
            let items = pair.kind == .array ? Array(pair.elements) : []
            guard items.count == 2, let entity = items[0].stringValue, let rowID = items[1].number?.int64 else {
                throw bad("item \(index) is not an [entity, rm_id] pair")
            }
            guard layout.table(entity) != nil else { throw bad("item \(index) names '\(entity)', which is not an entity of the store") }
            keys.append(RecordGraphLoad.Key(entity: entity, rowID: rowID))
        }
        return keys
    }
}

/// Loading stored records with their related records, level by level, whatever engine reads
/// the rows: the engine asks `requests()`, reads each, hands the rows to `receive`, and calls
/// `advance()` until it returns `false`; `records()` then builds them.
package struct RecordGraphLoad {
    /// A stored row: its entity and row id.
    package struct Key: Hashable, Sendable {
        package var entity: String
        package var rowID: Int64
        package init(entity: String, rowID: Int64) {
            self.entity = entity
            self.rowID = rowID
        }
    }

    /// One row read: its attribute values and, when links were asked for, its related keys per relationship.
    package struct Row {
        package var rowID: Int64
        package var values: [Value?]
        package var links: [(String, [Key])]
        package init(rowID: Int64, values: [Value?], links: [(String, [Key])]) {
            self.rowID = rowID
            self.values = values
            self.links = links
        }
    }

    /// Rows of one table to read (at most 500).
    package struct Request {
        package var table: StoreLayout.Table
        package var rowIDs: [Int64]
        package var followLinks: Bool
    }

    private let layout: StoreLayout
    private let roots: [Key]
    private let depth: Int
    private var builder: RecordGraphBuilder
    private var handles: [Key: Int] = [:]
    private var pendingLinks: [(handle: Int, relationship: String, targets: [Key])] = []
    private var level: [Key]
    private var next: [Key] = []
    private var currentDepth = 0

    package init(roots: [Key], depth: Int, model: StoreModel) {
        layout = model.layout
        self.roots = roots
        self.depth = depth
        builder = RecordGraphBuilder(mapper: model.mapper)
        level = roots
    }

    /// The rows of the current level not read yet, by table in layout order.
    package func requests() -> [Request] {
        let followLinks = currentDepth < depth
        let byEntity = Dictionary(grouping: level.filter { handles[$0] == nil }, by: \.entity)
        var requests: [Request] = []
        for table in layout.tables {
            guard let keys = byEntity[table.entity] else { continue }
            for start in stride(from: 0, to: keys.count, by: 500) {
                requests.append(Request(table: table, rowIDs: keys[start..<min(start + 500, keys.count)].map(\.rowID), followLinks: followLinks))
            }
        }
        return requests
    }

    /// The rows read for a request.
    package mutating func receive(_ rows: [Row], of entity: String) throws {
        for row in rows {
            let key = Key(entity: entity, rowID: row.rowID)
            guard handles[key] == nil else { continue }
            let handle = try builder.add(entity: entity, attributes: row.values)
            handles[key] = handle
            for (relationship, targets) in row.links {
                pendingLinks.append((handle, relationship, targets))
                next += targets
            }
        }
    }

    /// Moves to the next level; `false` when there is none.
    package mutating func advance() -> Bool {
        level = next
        next = []
        currentDepth += 1
        return !level.isEmpty && currentDepth <= max(0, depth)
    }

    /// The records of the roots, in order, related as read.
    package mutating func records() throws -> [RestMap.Record] {
        for link in pendingLinks {
            try builder.relate(link.handle, relationship: link.relationship, to: link.targets.compactMap { handles[$0] })
        }
        let records = builder.build()
        return roots.compactMap { handles[$0].map { records[$0] } }
    }
}

import Foundation
import GRDB
import RestMap

/// What one committed transaction changed in a query's result (the first element of a feed
/// holds the whole current result as `inserted`).
public struct StoreChanges: Sendable {
    /// Records that entered the result.
    public var inserted: [RestMap.Record]
    /// Records still in the result whose values (or related records, to the query's depth) changed.
    public var updated: [RestMap.Record]
    /// Records that left the result, as they were before.
    public var deleted: [RestMap.Record]
    /// The whole current result, in the query's order.
    public var records: [RestMap.Record]
}

extension SQLiteEngine {
    /// A feed of the changes to a query's result, on GRDB's `ValueObservation` (`RecordStore.changes`).
    func changes(_ query: StoreQuery) -> AsyncThrowingStream<StoreChanges, any Error> {
        let observation = ValueObservation.tracking { [self] db in
            let loader = RecordLoader(store: self)
            let keys = try loader.selectRoots(query, db)
            return StoreSnapshot(rowIDs: keys.map(\.rowID), records: try loader.load(keys, depth: query.depth, db))
        }
        let values = observation.values(in: pool)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var previous: StoreSnapshot?
                    for try await snapshot in values {
                        let changes = snapshot.changes(since: previous)
                        if StoreSnapshot.isReported(changes, first: previous == nil) {
                            continuation.yield(changes)
                        }
                        previous = snapshot
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// One observed result: row ids and records in order.
package struct StoreSnapshot: Sendable {
    package var rowIDs: [Int64]
    package var records: [RestMap.Record]

    package init(rowIDs: [Int64], records: [RestMap.Record]) {
        self.rowIDs = rowIDs
        self.records = records
    }

    /// Whether a change since `previous` is worth an element of the feed (the first one always is).
    package static func isReported(_ changes: StoreChanges, first: Bool) -> Bool {
        first || !(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty)
    }

    /// What changed since the previous result (all of it, inserted, for the first).
    package func changes(since previous: StoreSnapshot?) -> StoreChanges {
        guard let previous else { return StoreChanges(inserted: records, updated: [], deleted: [], records: records) }
        let before = Dictionary(zip(previous.rowIDs, previous.records), uniquingKeysWith: { first, _ in first })
        let now = Set(rowIDs)
        var inserted: [RestMap.Record] = []
        var updated: [RestMap.Record] = []
        for (rowID, record) in zip(rowIDs, records) {
            if let old = before[rowID] {
                if RecordWriter.json([old]) != RecordWriter.json([record]) { updated.append(record) }
            } else {
                inserted.append(record)
            }
        }
        let deleted = zip(previous.rowIDs, previous.records).filter { !now.contains($0.0) }.map(\.1)
        return StoreChanges(inserted: inserted, updated: updated, deleted: deleted, records: records)
    }
}

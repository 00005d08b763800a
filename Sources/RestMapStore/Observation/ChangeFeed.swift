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

extension RecordStore {
    /// A feed of the changes to a query's result, on GRDB's `ValueObservation`: one element when
    /// it starts, then one per committed transaction that changed the result (transactions that
    /// touch the tables without changing the result are skipped). Like NSFetchedResultsController
    /// and RSAPI's RSDataFetcher. Ends when the consuming task is cancelled.
    public func changes(_ query: StoreQuery) -> AsyncThrowingStream<StoreChanges, any Error> {
        let observation = ValueObservation.tracking { [self] db in
            let loader = RecordLoader(store: self)
            let keys = try loader.selectRoots(query, db)
            return Snapshot(rowIDs: keys.map(\.rowID), records: try loader.load(keys, depth: query.depth, db))
        }
        let values = observation.values(in: pool)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var previous: Snapshot?
                    for try await snapshot in values {
                        let changes = snapshot.changes(since: previous)
                        if previous == nil || !(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty) {
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
private struct Snapshot: Sendable {
    var rowIDs: [Int64]
    var records: [Record]

    func changes(since previous: Snapshot?) -> StoreChanges {
        guard let previous else { return StoreChanges(inserted: records, updated: [], deleted: [], records: records) }
        let before = Dictionary(zip(previous.rowIDs, previous.records), uniquingKeysWith: { first, _ in first })
        let now = Set(rowIDs)
        var inserted: [Record] = []
        var updated: [Record] = []
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

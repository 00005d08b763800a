import GRDB
import RestMap
import RestMapJSON

/// The upsert statements of one table for one save, each compiled on first use and then reused
/// for every record: by the slots a record has values for (`nil`: all of them, the common case).
final class UpsertStatements {
    let sql: TableSQL
    private let db: Database
    private var select: DirectStatement?
    /// Per kind (`nil`: not asked for yet), for all slots and by the slots present.
    private var allSlots = [Entry?](repeating: nil, count: Kind.allCases.count)
    private var someSlots: [[Int]: [Entry?]] = [:]

    private enum Kind: Int, CaseIterable {
        case insert, upsert, update, updateLinks, differs
    }

    /// A kind's statement for a set of slots, or none when it would assign nothing (an update
    /// without columns to set): remembered either way, so the SQL is built once.
    private enum Entry {
        case none
        case compiled(DirectStatement)
    }

    init(_ sql: TableSQL, _ db: Database) {
        self.sql = sql
        self.db = db
    }

    /// What the batch lookup found of one table's records, by position in the save's group.
    struct StoredRows {
        /// The row id of each record stored already (`nil`: not stored, or not identified).
        var rowIDs: [Int64?]
        /// The stored foreign-key columns of each record, `linkCount` per record (`nil`: NULL);
        /// empty when the lookup did not read them.
        var links: [Int64?] = []
        var linkCount = 0

        /// The stored foreign keys of the record at `position`, or `nil` when not read.
        func links(at position: Int) -> ArraySlice<Int64?>? {
            links.isEmpty || rowIDs[position] == nil ? nil : links[position * linkCount ..< (position + 1) * linkCount]
        }
    }

    /// The records whose identity is stored already: none when the table is empty (a fresh
    /// store), else found in one query (with their foreign keys) when the table has a single
    /// INTEGER or TEXT identity column; `nil` otherwise (each record is then upserted).
    func storedRows(of records: [RestMap.Record]) throws -> StoredRows? {
        guard !sql.identity.isEmpty else { return nil }
        if try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(StoreSQL.quote(sql.table.entity)))") ?? false) {
            return StoredRows(rowIDs: [Int64?](repeating: nil, count: records.count))
        }
        guard let query = sql.selectByIdentities else { return nil }
        let slot = sql.identity[0], kind = sql.kinds[slot]
        var identities = JSONWriter()
        var positions: [Int] = []
        identities.beginArray()
        for (position, record) in records.enumerated() {
            switch record.attributeValues[slot].map({ ColumnCoding.stored($0, kind: kind) }) {
            case .integer(let integer)?: identities.integer(integer)
            case .text(let text)?: identities.string(text)
            default: continue
            }
            positions.append(position)
        }
        identities.endArray()
        let linkCount = sql.linkColumns.count
        var stored = StoredRows(rowIDs: [Int64?](repeating: nil, count: records.count),
                                links: [Int64?](repeating: nil, count: records.count * linkCount), linkCount: linkCount)
        let statement = try DirectStatement(query, db)
        try statement.bind(.text(identities.string), at: 1)
        try statement.forEachRow {
            // `json_each` numbers the array from 0: every key is a position in `positions`.
            guard let key = statement.integer(at: 0), positions.indices.contains(Int(key)) else { return }
            let position = positions[Int(key)]
            stored.rowIDs[position] = statement.integer(at: 1)
            for link in 0..<linkCount { stored.links[position * linkCount + link] = statement.integer(at: Int32(2 + link)) }
        }
        return stored
    }

    /// `SELECT rm_id … WHERE` the identity columns equal `?1…?k`.
    func selectByIdentity() throws -> DirectStatement {
        if let select { return select }
        let statement = try DirectStatement(sql.selectByIdentity, db)
        select = statement
        return statement
    }

    // Total (the force unwraps): insert, upsert and differs always have a statement.

    /// `TableSQL.insert(slots)`.
    func insert(_ slots: [Int]?) throws -> DirectStatement { try statement(.insert, slots)! }
    /// `TableSQL.upsert(slots)`.
    func upsert(_ slots: [Int]?) throws -> DirectStatement { try statement(.upsert, slots)! }
    /// `TableSQL.update(slots)`; `nil` when it assigns nothing.
    func update(_ slots: [Int]?) throws -> DirectStatement? { try statement(.update, slots) }
    /// `TableSQL.updateLinks(slots)`; `nil` when it assigns nothing.
    func updateLinks(_ slots: [Int]?) throws -> DirectStatement? { try statement(.updateLinks, slots) }
    /// `TableSQL.differs(slots)`.
    func differs(_ slots: [Int]?) throws -> DirectStatement { try statement(.differs, slots)! }

    /// The statement of `kind` for `slots` (`nil`: all of them), compiled on first use; `nil`
    /// when it would assign nothing.
    private func statement(_ kind: Kind, _ slots: [Int]?) throws -> DirectStatement? {
        let known: Entry? = slots.map { someSlots[$0]?[kind.rawValue] ?? nil } ?? allSlots[kind.rawValue]
        switch known {
        case .compiled(let statement)?: return statement
        case .none?: return nil
        case nil: break
        }
        let chosen = slots ?? Array(sql.columns.indices)
        let text: String? = switch kind {
        case .insert: sql.insert(chosen)
        case .upsert: sql.upsert(chosen)
        case .update: sql.update(chosen)
        case .updateLinks: sql.updateLinks(chosen)
        case .differs: sql.differs(chosen)
        }
        let entry = try text.map { Entry.compiled(try DirectStatement($0, db)) } ?? .none
        if let slots {
            someSlots[slots, default: [Entry?](repeating: nil, count: Kind.allCases.count)][kind.rawValue] = entry
        } else {
            allSlots[kind.rawValue] = entry
        }
        if case .compiled(let statement) = entry { return statement }
        return nil
    }
}

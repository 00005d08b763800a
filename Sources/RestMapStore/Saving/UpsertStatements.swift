import GRDB
import RestMap
import RestMapJSON

/// The upsert statements of one table for one save, each compiled on first use and then reused
/// for every record: by the slots a record has values for (`nil`: all of them, the common case).
final class UpsertStatements {
    let sql: TableSQL
    private let db: Database
    private var select: DirectStatement?
    private var allSlots = [DirectStatement?](repeating: nil, count: Kind.allCases.count)
    private var someSlots: [[Int]: [DirectStatement?]] = [:]

    private enum Kind: Int, CaseIterable {
        case insert, upsert, update, updateLinks, differs
    }

    init(_ sql: TableSQL, _ db: Database) {
        self.sql = sql
        self.db = db
    }

    /// The row ids of the records whose identity is stored already, by position in `records`
    /// (`nil`: not stored, or not identified): none when the table is empty (a fresh store), else
    /// found in one query when the table has a single INTEGER or TEXT identity column; `nil`
    /// otherwise (each record is then upserted).
    func storedRowIDs(of records: [RestMap.Record]) throws -> [Int64?]? {
        guard !sql.identity.isEmpty else { return nil }
        if try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(StoreSQL.quote(sql.table.entity)))")! {
            return [Int64?](repeating: nil, count: records.count)
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
        var stored = [Int64?](repeating: nil, count: records.count)
        let statement = try DirectStatement(query, db)
        try statement.bind(.text(identities.string), at: 1)
        try statement.forEachRow { index, rowID in stored[positions[Int(index)]] = rowID }
        return stored
    }

    /// `SELECT rm_id … WHERE` the identity columns equal `?1…?k`.
    func selectByIdentity() throws -> DirectStatement {
        if let select { return select }
        let statement = try DirectStatement(sql.selectByIdentity, db)
        select = statement
        return statement
    }

    /// `TableSQL.insert(slots)`.
    func insert(_ slots: [Int]?) throws -> DirectStatement { try compiled(.insert, slots) }
    /// `TableSQL.upsert(slots)`.
    func upsert(_ slots: [Int]?) throws -> DirectStatement { try compiled(.upsert, slots) }
    /// `TableSQL.update(slots)`; `nil` when it assigns nothing.
    func update(_ slots: [Int]?) throws -> DirectStatement? {
        if let statement = cached(.update, slots) { return statement }
        guard sql.update(slots ?? Array(sql.columns.indices)) != nil else { return nil }
        return try compiled(.update, slots)
    }
    /// `TableSQL.updateLinks(slots)`; `nil` when it assigns nothing.
    func updateLinks(_ slots: [Int]?) throws -> DirectStatement? {
        if let statement = cached(.updateLinks, slots) { return statement }
        guard sql.updateLinks(slots ?? Array(sql.columns.indices)) != nil else { return nil }
        return try compiled(.updateLinks, slots)
    }
    /// `TableSQL.differs(slots)`.
    func differs(_ slots: [Int]?) throws -> DirectStatement { try compiled(.differs, slots) }

    private func cached(_ kind: Kind, _ slots: [Int]?) -> DirectStatement? {
        slots.map { someSlots[$0]?[kind.rawValue] } ?? allSlots[kind.rawValue]
    }

    private func compiled(_ kind: Kind, _ slots: [Int]?) throws -> DirectStatement {
        if let statement = cached(kind, slots) { return statement }
        let chosen = slots ?? Array(sql.columns.indices)
        let text = switch kind {
        case .insert: sql.insert(chosen)
        case .upsert: sql.upsert(chosen)
        case .update: sql.update(chosen) ?? ""
        case .updateLinks: sql.updateLinks(chosen) ?? ""
        case .differs: sql.differs(chosen)
        }
        let statement = try DirectStatement(text, db)
        if let slots {
            someSlots[slots, default: [DirectStatement?](repeating: nil, count: Kind.allCases.count)][kind.rawValue] = statement
        } else {
            allSlots[kind.rawValue] = statement
        }
        return statement
    }
}

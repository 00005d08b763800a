import GRDB

/// The upsert statements of one table for one save, each compiled on first use and then reused
/// for every record: by the slots a record has values for (`nil`: all of them, the common case).
final class UpsertStatements {
    let sql: TableSQL
    private let db: Database
    private var select: DirectStatement?
    private var allSlots: [DirectStatement?] = [nil, nil, nil]
    private var someSlots: [[Int]: [DirectStatement?]] = [:]

    private enum Kind: Int {
        case insert, upsert, differs
    }

    init(_ sql: TableSQL, _ db: Database) {
        self.sql = sql
        self.db = db
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
    /// `TableSQL.differs(slots)`.
    func differs(_ slots: [Int]?) throws -> DirectStatement { try compiled(.differs, slots) }

    private func compiled(_ kind: Kind, _ slots: [Int]?) throws -> DirectStatement {
        if let statement = slots.map({ someSlots[$0]?[kind.rawValue] }) ?? allSlots[kind.rawValue] { return statement }
        let chosen = slots ?? Array(sql.columns.indices)
        let statement = try DirectStatement(kind == .insert ? sql.insert(chosen) : kind == .upsert ? sql.upsert(chosen) : sql.differs(chosen), db)
        if let slots {
            someSlots[slots, default: [nil, nil, nil]][kind.rawValue] = statement
        } else {
            allSlots[kind.rawValue] = statement
        }
        return statement
    }
}

import Foundation
import RestMap
import RestMapStore
import Testing

/// A schema that exercises every column type, a composite identity, both relationship kinds and
/// every `store:` rule.
let bankSchema = """
    restmap: 1
    name: bank
    entities:
      Account:
        identifiedBy: [bank, number]
        attributes:
          bank: bank
          number: { from: number, type: integer }
          balance: { from: balance, type: decimal }
          rate: { from: rate, type: number }
          active: { from: active, type: boolean }
          openedAt: { from: opened, type: date }
          site: { from: site, type: url }
          tags: { from: tags, type: [string] }
          extra: { from: extra, type: any }
          version: { from: version, type: integer }
          deleted: { from: deleted, type: boolean }
        relationships:
          owner: { from: owner, entity: Person }
          cards: { from: cards, entity: Card, many: true }
      Person:
        identifiedBy: id
        attributes:
          id: { from: id, type: integer }
          name: name
      Card:
        identifiedBy: id
        attributes:
          id: { from: id, type: integer }
          label: label
    responses:
      - { path: /banks/:bank/accounts, entity: Account }
    store:
      orphans:
        - { path: /banks/:bank/accounts, entity: Account, where: { bank: ":bank" } }
      search: { Person: [name] }
      tombstone: { Account: { deleted: true } }
      modifiedBy: { Account: version }
    """

/// One account as JSON.
func account(_ bank: String, _ number: Int64, balance: String = "10.50", version: Int = 1, owner: Int = 1,
             ownerName: String = "Ann", cards: [(Int, String)] = [], deleted: Bool = false) -> String {
    let cardList = cards.map { #"{"id": \#($0.0), "label": "\#($0.1)"}"# }.joined(separator: ", ")
    return #"""
        {"bank": "\#(bank)", "number": \#(number), "balance": \#(balance), "rate": 0.25, "active": true, "opened": 1700000000,
         "site": "https://bank.example/\#(number)", "tags": ["a", "b"], "extra": {"n": 18446744073709551616},
         "version": \#(version), "deleted": \#(deleted), "owner": {"id": \#(owner), "name": "\#(ownerName)"}, "cards": [\#(cardList)]}
        """#
}

@Suite struct StoreTableTests {
    @Test func tablesColumnsIndexesAndForeignKeysFollowTheSchema() async throws {
        let folder = try StoreFixture.folder()
        let db = folder.appendingPathComponent("bank.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: bankSchema))
        try store.close()
        let columns = try Program.sqlite(db, #"SELECT name, type FROM pragma_table_info('Account') ORDER BY cid"#)
        #expect(columns == ["rm_id|INTEGER", "bank|ANY", "number|INTEGER", "balance|TEXT", "rate|REAL", "active|INTEGER",
                            "openedAt|REAL", "site|TEXT", "tags|TEXT", "extra|ANY", "version|INTEGER", "deleted|INTEGER",
                            "owner|INTEGER"])
        let identity = try Program.sqlite(db, #"SELECT name FROM pragma_index_info('Account.identity') ORDER BY seqno"#)
        #expect(identity == ["bank", "number"])
        #expect(try Program.sqlite(db, #"SELECT "unique" FROM pragma_index_list('Account') WHERE name = 'Account.identity'"#) == ["1"])
        #expect(try Program.sqlite(db, #"SELECT "from", "table", "to", on_delete FROM pragma_foreign_key_list('Account')"#)
            == ["owner|Person|rm_id|SET NULL"])
        #expect(try Program.sqlite(db, #"SELECT "from", "table" FROM pragma_foreign_key_list('Account.cards') ORDER BY "from""#)
            == ["source|Account", "target|Card"])
        #expect(try Program.sqlite(db, "SELECT value FROM rm_schema WHERE key = 'schemaName'") == ["bank"])
        #expect(try Program.sqlite(db, "SELECT count(*) FROM sqlite_master WHERE name = 'Person.search'") == ["1"])
        #expect(try Program.sqlite(db, "PRAGMA journal_mode") == ["wal"])
    }

    @Test func valuesRoundTripExactlyAndReadBackAsTheMappedRecords() async throws {
        let folder = try StoreFixture.folder()
        let db = folder.appendingPathComponent("bank.sqlite").path
        let mapper = try StoreFixture.mapper(yaml: bankSchema)
        let store = try RecordStore(path: db, mapper: mapper)
        let body = "[" + account("x", 9_223_372_036_854_775_807, balance: "12345678901234567890.123456789", cards: [(1, "gold")]) + "]"
        let response = Response(path: "/banks/x/accounts", body: body)
        let mapped = try mapper.map(response)
        try await store.save(mapped, of: response)
        let stored = try await store.records(StoreQuery(entity: "Account"))
        #expect(RecordWriter.json(stored) == RecordWriter.json(mapped.records))
        #expect(stored.first?.number.int == 9_223_372_036_854_775_807)
        #expect(stored.first?.balance.decimal == Decimal(string: "12345678901234567890.123456789"))
        let byIdentity = try await store.record("Account", identifiedBy: [.string("x"), .string("9223372036854775807")])
        #expect(byIdentity?.owner.name.string == "Ann")
        #expect(byIdentity?.related("cards").map { $0.label.string } == ["gold"])
        try store.close()
        let raw = try Program.sqlite(db, "SELECT number, typeof(number), balance, typeof(balance), extra, datetime(openedAt, 'unixepoch') FROM Account")
        #expect(raw == [#"9223372036854775807|integer|12345678901234567890.123456789|text|{"n":18446744073709551616}|2023-11-14 22:13:20"#])
    }

    @Test func evolutionMigratesAdditiveChangesAndRefusesDestructiveOnes() async throws {
        let folder = try StoreFixture.folder()
        let db = folder.appendingPathComponent("bank.sqlite").path
        let first = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: bankSchema))
        try await StoreFixture.save(first, path: "/banks/x/accounts", body: "[" + account("x", 1) + "]")
        try first.close()

        let added = bankSchema.replacingOccurrences(of: "      name: name\n", with: "      name: name\n      email: email\n")
            .replacingOccurrences(of: "responses:", with: "  Branch:\n    attributes: [id, city]\nresponses:")
            .replacingOccurrences(of: "search: { Person: [name] }", with: "search: { Person: [name, email], Branch: [city] }")
        let second = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: added))
        #expect(try await second.records(StoreQuery(entity: "Person")).map { $0.name.string } == ["Ann"])
        try await StoreFixture.save(second, path: "/banks/x/accounts", body: #"[{"bank": "x", "number": 2, "owner": {"id": 2, "name": "Bo", "email": "bo@example.com"}}]"#,
                                    method: "POST")
        #expect(try await second.search("bo@example").map { $0.name.string } == ["Bo"])
        try second.close()
        #expect(try Program.sqlite(db, "SELECT count(*) FROM Branch") == ["0"])
        #expect(try Program.sqlite(db, "SELECT coalesce(email, '-') FROM Person ORDER BY id") == ["-", "bo@example.com"])

        let removed = added.replacingOccurrences(of: "      rate: { from: rate, type: number }\n", with: "")
            .replacingOccurrences(of: "number: { from: number, type: integer }", with: "number: { from: number, type: string }")
        #expect {
            try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: removed))
        } throws: { error in
            let message = "\(error)"
            return message.contains("attribute 'Account.rate' was removed")
                && message.contains("attribute 'Account.number' changed type from integer to string") && message.contains("--rebuild")
        }
        #expect(try Program.sqlite(db, "SELECT count(*) FROM Account") == ["2"], "the refused open left the store as it was")
        let rebuilt = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: removed), rebuild: true)
        #expect(try await rebuilt.records(StoreQuery(entity: "Account")).isEmpty)
        try rebuilt.close()
        #expect(try Program.sqlite(db, "SELECT count(*) FROM pragma_table_info('Account') WHERE name = 'rate'") == ["0"])
    }
}

@Suite struct StoreSaveTests {
    func openBank() throws -> (RecordStore, String) {
        let db = try StoreFixture.folder().appendingPathComponent("bank.sqlite").path
        return (try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: bankSchema)), db)
    }

    @Test func upsertsByIdentityAndCountsWhatChanged() async throws {
        let (store, db) = try openBank()
        let body = "[" + account("x", 1, cards: [(1, "gold")]) + "," + account("x", 2, cards: [(2, "blue")]) + "]"
        let first = try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        #expect(first.inserted == 5 && first.updated == 0)   // 2 accounts, 1 person (merged), 2 cards
        let again = try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        #expect(again.description == "inserted 0, updated 0, unchanged 5, deleted 0 orphans, skipped 0 not newer")
        let changed = "[" + account("x", 1, cards: [(1, "gold")]) + "," + account("x", 2, balance: "11", version: 2, cards: [(2, "blue")]) + "]"
        let update = try await StoreFixture.save(store, path: "/banks/x/accounts", body: changed)
        #expect(update.updated == 1 && update.unchanged == 4)
        try store.close()
        #expect(try Program.sqlite(db, "SELECT bank, number, balance, version FROM Account ORDER BY number") == ["x|1|10.5|1", "x|2|11|2"])
        #expect(try Program.sqlite(db, "SELECT count(*) FROM Person") == ["1"])
    }

    @Test func aFailureMidWriteLeavesTheStoreExactlyAsItWas() async throws {
        let (store, db) = try openBank()
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, cards: [(1, "gold")]) + "]")
        // A real SQLite failure in the middle of the transaction: the third card's insert aborts.
        _ = try Program.sqlite(db, """
            CREATE TRIGGER forced_failure BEFORE INSERT ON Card WHEN NEW.label = 'boom'
            BEGIN SELECT RAISE(ABORT, 'forced failure'); END
            """)
        let before = try Program.sqlite(db, ".dump")
        let body = "[" + account("x", 1, balance: "99", version: 5, cards: [(1, "platinum")]) + "," + account("x", 2, cards: [(2, "blue")])
            + "," + account("x", 3, cards: [(3, "boom")]) + "]"
        await #expect(throws: (any Error).self) {
            try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        }
        try store.close()
        #expect(try Program.sqlite(db, ".dump") == before)
        #expect(try Program.sqlite(db, "SELECT balance FROM Account") == ["10.5"])
    }

    @Test func tombstonesDeleteRecordsInsteadOfStoringThem() async throws {
        let (store, db) = try openBank()
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1) + "," + account("x", 2) + "]")
        let summary = try await StoreFixture.save(store, path: "/banks/y/accounts",
                                                  body: "[" + account("x", 1, deleted: true) + "," + account("x", 3, deleted: true) + "]")
        #expect(summary.deletedTombstones == 1 && summary.inserted == 0)
        #expect(summary.description.hasSuffix("deleted 1 tombstoned"))
        try store.close()
        #expect(try Program.sqlite(db, "SELECT number FROM Account ORDER BY number") == ["2"])
    }

    @Test func modifiedBySkipsUpdatesThatAreNotNewer() async throws {
        let (store, db) = try openBank()
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "5", version: 2) + "]")
        let older = try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "1", version: 1) + "]")
        let same = try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "2", version: 2) + "]")
        #expect(older.skippedNotNewer == 1 && same.skippedNotNewer == 1 && older.updated == 0)
        #expect(try Program.sqlite(db, "SELECT balance FROM Account") == ["5"])
        let newer = try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "7", version: 3) + "]")
        #expect(newer.updated == 1 && newer.skippedNotNewer == 0)
        try store.close()
        #expect(try Program.sqlite(db, "SELECT balance, version FROM Account") == ["7|3"])
    }

    @Test func orphansAreDeletedInTheWhereScopeAfterACompleteSuccessfulGetOnly() async throws {
        let (store, db) = try openBank()
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + [1, 2, 3].map { account("x", $0) }.joined(separator: ",") + "]")
        try await StoreFixture.save(store, path: "/banks/y/accounts", body: "[" + [1, 2].map { account("y", $0) }.joined(separator: ",") + "]")
        let smaller = "[" + account("x", 1) + "]"
        let post = try await StoreFixture.save(store, path: "/banks/x/accounts", body: smaller, method: "POST")
        #expect(post.deletedOrphans == 0 && post.orphansKept == "not a successful GET")
        let partial = try await StoreFixture.save(store, path: "/banks/x/accounts", body: smaller, isCompletePage: false)
        #expect(partial.deletedOrphans == 0 && partial.orphansKept == "a partial page")
        let failing = "[" + account("x", 1) + #", {"bank": "x", "number": "not a number"}]"#
        let withErrors = try await StoreFixture.save(store, path: "/banks/x/accounts", body: failing)
        #expect(withErrors.deletedOrphans == 0 && withErrors.orphansKept == "1 record(s) failed to map")
        #expect(try Program.sqlite(db, "SELECT count(*) FROM Account") == ["5"])
        let get = try await StoreFixture.save(store, path: "/banks/x/accounts", body: smaller)
        #expect(get.deletedOrphans == 2 && get.orphansKept == nil)
        try store.close()
        #expect(try Program.sqlite(db, "SELECT bank || number FROM Account ORDER BY bank, number") == ["x1", "y1", "y2"])
    }

    @Test func upsertsOfIdentityOnlyRealIdentityAndPartialRecordsCountAndKeepWhatTheyShould() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("readings.sqlite").path
        // Readings by a REAL identity (upserted one by one), sensors by an INTEGER one (found by one lookup).
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: """
            restmap: 1
            entities:
              Tag: { identifiedBy: name, attributes: { name: name } }
              Reading: { identifiedBy: key, attributes: { key: { from: key, type: number }, value: { from: value, type: integer }, note: note } }
              Sensor: { identifiedBy: key, attributes: { key: { from: key, type: integer }, value: { from: value, type: integer }, note: note } }
            responses:
              - { path: /tags, entity: Tag }
              - { path: /readings, entity: Reading }
              - { path: /sensors, entity: Sensor }
            """))
        // A record of nothing but its identity: inserted once, then unchanged.
        #expect(try await StoreFixture.save(store, path: "/tags", body: #"[{"name": "a"}, {"name": "b"}]"#).inserted == 2)
        let tagsAgain = try await StoreFixture.save(store, path: "/tags", body: #"[{"name": "b"}, {"name": "c"}]"#)
        #expect(tagsAgain.description == "inserted 1, updated 0, unchanged 1, deleted 0 orphans, skipped 0 not newer")
        // A record that leaves `note` out keeps the stored note.
        for (path, first, second) in [("/readings", "1.5", "2.5"), ("/sensors", "7", "8")] {
            try await StoreFixture.save(store, path: path, body: #"[{"key": \#(first), "value": 1, "note": "first"}]"#)
            let partial = try await StoreFixture.save(store, path: path, body: #"[{"key": \#(first), "value": 2}, {"key": \#(second), "value": 3}]"#)
            #expect(partial.description == "inserted 1, updated 1, unchanged 0, deleted 0 orphans, skipped 0 not newer", "\(path)")
            let same = try await StoreFixture.save(store, path: path, body: #"[{"key": \#(first), "value": 2}]"#)
            #expect(same.unchanged == 1 && same.updated == 0, "\(path)")
        }
        try store.close()
        #expect(try Program.sqlite(db, "SELECT rm_id, name FROM Tag ORDER BY rm_id") == ["1|a", "2|b", "3|c"])
        for table in ["Reading", "Sensor"] {
            #expect(try Program.sqlite(db, "SELECT rm_id, value, coalesce(note, 'NULL') FROM \(table) ORDER BY rm_id") == ["1|2|first", "2|3|NULL"])
        }
    }

    @Test func storedRowsAreRewrittenOnlyWhereAValueChangedAndForeignKeysOnlyWhenTheyChange() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("repositories.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: """
            restmap: 1
            entities:
              Repository:
                identifiedBy: id
                attributes: { id: { from: id, type: integer }, stars: { from: stars, type: integer } }
                relationships: { owner: { from: owner, entity: Owner } }
              Owner: { identifiedBy: id, attributes: { id: { from: id, type: integer }, login: login } }
            responses:
              - { path: /repositories, entity: Repository }
            """))
        func body(_ repositories: [(id: Int, stars: Int, owner: Int)]) -> String {
            "[" + repositories.map { #"{"id": \#($0.id), "stars": \#($0.stars), "owner": {"id": \#($0.owner), "login": "u\#($0.owner)"}}"# }
                .joined(separator: ",") + "]"
        }
        let first = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 10, 7), (2, 20, 7)]))
        #expect(first.description == "inserted 3, updated 0, unchanged 0, deleted 0 orphans, skipped 0 not newer")
        // Count the row updates SQLite runs, and those that assign the foreign-key column at all
        // (`UPDATE OF owner` fires whenever a statement assigns it, changed or not).
        _ = try Program.sqlite(db, """
            CREATE TABLE writes (kind TEXT);
            CREATE TRIGGER row_written AFTER UPDATE ON Repository BEGIN INSERT INTO writes VALUES ('row'); END;
            CREATE TRIGGER owner_assigned AFTER UPDATE OF owner ON Repository BEGIN INSERT INTO writes VALUES ('owner'); END;
            """)
        func writes() throws -> [String] { try Program.sqlite(db, "SELECT kind, count(*) FROM writes GROUP BY kind ORDER BY kind") }
        let same = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 10, 7), (2, 20, 7)]))
        #expect(same.description == "inserted 0, updated 0, unchanged 3, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == [])
        let stars = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 11, 7), (2, 20, 7)]))
        #expect(stars.description == "inserted 0, updated 1, unchanged 2, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == ["row|1"])
        let owner = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 11, 7), (2, 20, 8)]))
        #expect(owner.description == "inserted 1, updated 1, unchanged 2, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == ["owner|1", "row|2"])
        let cleared = try await StoreFixture.save(store, path: "/repositories", body: #"[{"id": 2, "stars": 20, "owner": null}]"#)
        #expect(cleared.description == "inserted 0, updated 1, unchanged 0, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == ["owner|2", "row|3"])
        try store.close()
        #expect(try Program.sqlite(db, "SELECT r.id, r.stars, coalesce(o.id, 'NULL') FROM Repository r LEFT JOIN Owner o ON o.rm_id = r.owner ORDER BY r.id")
            == ["1|11|7", "2|20|NULL"])
    }

    @Test func theStoreRemembersWhatEachGetPathReturned() async throws {
        let (store, _) = try openBank()
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 2) + "," + account("x", 1) + "]")
        try await StoreFixture.save(store, path: "/banks/y/accounts", body: "[" + account("y", 7) + "]")
        try await StoreFixture.save(store, path: "/banks/y/accounts", body: "[]")
        #expect(try await store.records(forPath: "/banks/x/accounts")?.map { $0.number.int } == [2, 1])
        #expect(try await store.records(forPath: "/banks/y/accounts")?.isEmpty == true)
        #expect(try await store.records(forPath: "/banks/z/accounts") == nil)
    }
}

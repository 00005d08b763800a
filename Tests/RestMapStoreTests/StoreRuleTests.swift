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

    @Test(arguments: Engine.allCases) func evolutionMigratesAdditiveChangesAndRefusesDestructiveOnes(_ engine: Engine) async throws {
        let (first, db) = try await engine.newStore(try StoreFixture.mapper(yaml: bankSchema), name: "bank")
        try await StoreFixture.save(first, path: "/banks/x/accounts", body: "[" + account("x", 1) + "]")
        try first.close()

        let added = bankSchema.replacingOccurrences(of: "      name: name\n", with: "      name: name\n      email: email\n")
            .replacingOccurrences(of: "responses:", with: "  Branch:\n    attributes: [id, city]\nresponses:")
            .replacingOccurrences(of: "search: { Person: [name] }", with: "search: { Person: [name, email], Branch: [city] }")
        let second = try await engine.open(db, mapper: try StoreFixture.mapper(yaml: added))
        #expect(try await second.records(StoreQuery(entity: "Person")).map { $0.name.string } == ["Ann"])
        try await StoreFixture.save(second, path: "/banks/x/accounts", body: #"[{"bank": "x", "number": 2, "owner": {"id": 2, "name": "Bo", "email": "bo@example.com"}}]"#,
                                    method: "POST")
        #expect(try await second.search("bo@example").map { $0.name.string } == ["Bo"])
        #expect(try await second.counts().first { $0.entity == "Branch" }?.count == 0)
        #expect(try await second.records(StoreQuery(entity: "Person", order: [("id", true)])).map { $0.email.string ?? "-" } == ["-", "bo@example.com"])
        try second.close()

        let removed = added.replacingOccurrences(of: "      rate: { from: rate, type: number }\n", with: "")
            .replacingOccurrences(of: "number: { from: number, type: integer }", with: "number: { from: number, type: string }")
        await #expect {
            try await engine.open(db, mapper: try StoreFixture.mapper(yaml: removed))
        } throws: { error in
            let message = "\(error)"
            return message.contains("attribute 'Account.rate' was removed")
                && message.contains("attribute 'Account.number' changed type from integer to string") && message.contains("--rebuild")
        }
        #expect(try engine.sql(db, #"SELECT count(*) FROM "Account""#, namespace: "bank") == ["2"], "the refused open left the store as it was")
        let rebuilt = try await engine.open(db, mapper: try StoreFixture.mapper(yaml: removed), rebuild: true)
        #expect(try await rebuilt.records(StoreQuery(entity: "Account")).isEmpty)
        try rebuilt.close()
        let rateColumns = engine == .sqlite ? "SELECT count(*) FROM pragma_table_info('Account') WHERE name = 'rate'"
            : "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'bank' AND table_name = 'Account' AND column_name = 'rate'"
        #expect(try engine.sql(db, rateColumns) == ["0"])
    }

    @Test func postgresColumnsIndexesAndForeignKeysFollowTheSchema() async throws {
        let (store, db) = try await Engine.postgres.newStore(try StoreFixture.mapper(yaml: bankSchema), name: "bank")
        try store.close()
        let columns = try Engine.postgres.sql(db, """
            SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'bank' AND table_name = 'Account' ORDER BY ordinal_position
            """)
        #expect(columns == ["rm_id|bigint", "bank|jsonb", "number|bigint", "balance|numeric", "rate|double precision", "active|boolean",
                            "openedAt|timestamp with time zone", "site|text", "tags|jsonb", "extra|jsonb", "version|bigint", "deleted|boolean",
                            "owner|bigint"])
        #expect(try Engine.postgres.sql(db, "SELECT indexdef FROM pg_indexes WHERE schemaname = 'bank' AND indexname = 'Account.identity'")
            == [#"CREATE UNIQUE INDEX "Account.identity" ON bank."Account" USING btree (bank, number)"#])
        #expect(try Engine.postgres.sql(db, """
            SELECT conrelid::regclass::text, confrelid::regclass::text, confdeltype FROM pg_constraint
            WHERE contype = 'f' AND connamespace = 'bank'::regnamespace ORDER BY 1, 2
            """) == [#"bank."Account"|bank."Person"|n"#, #"bank."Account.cards"|bank."Account"|c"#, #"bank."Account.cards"|bank."Card"|c"#])
        #expect(try Engine.postgres.sql(db, "SELECT value FROM rm_schema WHERE key = 'schemaName'", namespace: "bank") == ["bank"])
        #expect(try Engine.postgres.sql(db, "SELECT indexdef LIKE '%USING gin (rm_search)' FROM pg_indexes WHERE indexname = 'Person.search'") == ["t"])
    }

    @Test func longNamesAreShortenedForPostgres() async throws {
        let long = String(repeating: "VeryLongEntityName", count: 4)
        let mapper = try StoreFixture.mapper(yaml: """
            restmap: 1
            name: long
            entities:
              \(long):
                identifiedBy: id
                attributes: { id: { from: id, type: integer }, \(long)Attribute: { from: a, type: string } }
            responses:
              - { entity: \(long) }
            """)
        let (store, db) = try await Engine.postgres.newStore(mapper)
        try await StoreFixture.save(store, path: "/", body: #"[{"id": 1, "a": "x"}]"#)
        #expect(try await store.records(StoreQuery(entity: long)).first?["\(long)Attribute"].string == "x")
        try store.close()
        let tables = try Engine.postgres.sql(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'long' AND table_name LIKE 'VeryLong%'")
        #expect(tables.count == 1 && tables[0].utf8.count <= 63 && tables[0].contains("~"))
    }
}

/// The rules of saving, checked on both engines through the store's API.
@Suite struct StoreSaveTests {
    func openBank(_ engine: Engine) async throws -> (RecordStore, String) {
        try await engine.newStore(try StoreFixture.mapper(yaml: bankSchema), name: "bank")
    }

    /// The accounts as `bank number balance version`, by bank and number.
    func accounts(_ store: RecordStore) async throws -> [String] {
        try await store.records(StoreQuery(entity: "Account", order: [("bank", true), ("number", true)]))
            .map { "\($0.bank.string ?? "-") \($0.number.int ?? 0) \($0.balance.decimal.map { "\($0)" } ?? "-") \($0.version.int ?? 0)" }
    }

    @Test(arguments: Engine.allCases) func upsertsByIdentityAndCountsWhatChanged(_ engine: Engine) async throws {
        let (store, _) = try await openBank(engine)
        let body = "[" + account("x", 1, cards: [(1, "gold")]) + "," + account("x", 2, cards: [(2, "blue")]) + "]"
        let first = try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        #expect(first.inserted == 5 && first.updated == 0)   // 2 accounts, 1 person (merged), 2 cards
        let again = try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        #expect(again.description == "inserted 0, updated 0, unchanged 5, deleted 0 orphans, skipped 0 not newer")
        let changed = "[" + account("x", 1, cards: [(1, "gold")]) + "," + account("x", 2, balance: "11", version: 2, cards: [(2, "blue")]) + "]"
        let update = try await StoreFixture.save(store, path: "/banks/x/accounts", body: changed)
        #expect(update.updated == 1 && update.unchanged == 4)
        #expect(try await accounts(store) == ["x 1 10.5 1", "x 2 11 2"])
        #expect(try await store.counts().first { $0.entity == "Person" }?.count == 1)
        try store.close()
    }

    /// Texts that a text format would have to escape, NULLs among values, JSON of every shape,
    /// extreme numbers and dates: stored and read back as mapped, and found unchanged when saved again.
    @Test(arguments: Engine.allCases) func valuesOfEveryShapeRoundTripAndCompareEqualWhenSavedAgain(_ engine: Engine) async throws {
        let mapper = try StoreFixture.mapper(yaml: """
            restmap: 1
            name: shapes
            entities:
              Note:
                identifiedBy: key
                attributes:
                  key: key
                  text: text
                  extra: { from: extra, type: any }
                  at: { from: at, type: date }
                  n: { from: n, type: number }
                  count: { from: count, type: integer }
            responses:
              - { path: /notes, entity: Note }
            """)
        let (store, _) = try await engine.newStore(mapper, name: "shapes")
        let texts = [#"back\\slash"#, #"quote \" and , comma"#, "{braces}", #"tab\tnew\nline\r"#, "NULL", "", "é 🎉 e\u{0301}", #"\\N"#]
        var notes: [String] = []
        for (index, text) in texts.enumerated() {
            notes.append(#"{"key": "k\#(index)", "text": "\#(text)", "extra": {"a": [1, "\\", null, {"b": "\#(text)"}]}, "at": \#(1_700_000_000 + index).25, "n": \#(index).5e300, "count": -9223372036854775808}"#)
        }
        notes.append(#"{"key": "null", "text": null, "extra": null, "at": null, "n": null, "count": null}"#)
        notes.append(#"{"key": "scalar", "text": "12", "extra": "just text", "at": -1.000001, "n": 5e-324, "count": 9223372036854775807}"#)
        let body = "[" + notes.joined(separator: ",") + "]"
        let response = Response(path: "/notes", body: body)
        let mapped = try mapper.map(response)
        #expect(mapped.errors.isEmpty)
        let first = try await store.save(mapped, of: response)
        #expect(first.inserted == notes.count)
        let stored = try await store.records(StoreQuery(entity: "Note", order: [("key", true)]))
        let expected = mapped.records.sorted { ($0.key.string ?? "") < ($1.key.string ?? "") }
        #expect(RecordWriter.json(stored) == RecordWriter.json(expected))
        #expect(stored.first { $0.key.string == "null" }?.text.isNull == true)
        let again = try await store.save(mapped, of: response)
        #expect(again.unchanged == notes.count && again.updated == 0)
        try store.close()
    }

    @Test(arguments: Engine.allCases) func aFailureMidWriteLeavesTheStoreExactlyAsItWas(_ engine: Engine) async throws {
        let (store, db) = try await openBank(engine)
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, cards: [(1, "gold")]) + "]")
        // A real database failure in the middle of the transaction: the third card's insert aborts.
        switch engine {
        case .sqlite:
            _ = try engine.sql(db, """
                CREATE TRIGGER forced_failure BEFORE INSERT ON Card WHEN NEW.label = 'boom'
                BEGIN SELECT RAISE(ABORT, 'forced failure'); END
                """)
        case .postgres:
            _ = try engine.sql(db, """
                CREATE FUNCTION fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                IF NEW.label #>> '{}' = 'boom' THEN RAISE EXCEPTION 'forced failure'; END IF; RETURN NEW; END $$;
                CREATE TRIGGER forced_failure BEFORE INSERT ON "Card" FOR EACH ROW EXECUTE FUNCTION fail();
                """, namespace: "bank")
        }
        let before = try await store.dump()
        let paths = try await store.records(forPath: "/banks/x/accounts").map { RecordWriter.json($0) }
        let body = "[" + account("x", 1, balance: "99", version: 5, cards: [(1, "platinum")]) + "," + account("x", 2, cards: [(2, "blue")])
            + "," + account("x", 3, cards: [(3, "boom")]) + "]"
        await #expect {
            try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        } throws: { error in "\(error)".contains("forced failure") }
        #expect(try await store.dump() == before)
        #expect(try await store.records(forPath: "/banks/x/accounts").map { RecordWriter.json($0) } == paths)
        #expect(try await accounts(store) == ["x 1 10.5 1"])
        try store.close()
        if engine == .sqlite { #expect(try engine.sql(db, "SELECT balance FROM Account") == ["10.5"]) }
    }

    @Test(arguments: Engine.allCases) func tombstonesDeleteRecordsInsteadOfStoringThem(_ engine: Engine) async throws {
        let (store, _) = try await openBank(engine)
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1) + "," + account("x", 2) + "]")
        let summary = try await StoreFixture.save(store, path: "/banks/y/accounts",
                                                  body: "[" + account("x", 1, deleted: true) + "," + account("x", 3, deleted: true) + "]")
        #expect(summary.deletedTombstones == 1 && summary.inserted == 0)
        #expect(summary.description.hasSuffix("deleted 1 tombstoned"))
        #expect(try await accounts(store).map { $0.split(separator: " ")[1] } == ["2"])
        try store.close()
    }

    @Test(arguments: Engine.allCases) func modifiedBySkipsUpdatesThatAreNotNewer(_ engine: Engine) async throws {
        let (store, _) = try await openBank(engine)
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "5", version: 2) + "]")
        let older = try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "1", version: 1) + "]")
        let same = try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "2", version: 2) + "]")
        #expect(older.skippedNotNewer == 1 && same.skippedNotNewer == 1 && older.updated == 0)
        #expect(try await accounts(store) == ["x 1 5 2"])
        let newer = try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 1, balance: "7", version: 3) + "]")
        #expect(newer.updated == 1 && newer.skippedNotNewer == 0)
        #expect(try await accounts(store) == ["x 1 7 3"])
        try store.close()
    }

    @Test(arguments: Engine.allCases) func orphansAreDeletedInTheWhereScopeAfterACompleteSuccessfulGetOnly(_ engine: Engine) async throws {
        let (store, _) = try await openBank(engine)
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
        #expect(try await accounts(store).count == 5)
        let get = try await StoreFixture.save(store, path: "/banks/x/accounts", body: smaller)
        #expect(get.deletedOrphans == 2 && get.orphansKept == nil)
        #expect(try await accounts(store).map { $0.split(separator: " ").prefix(2).joined() } == ["x1", "y1", "y2"])
        try store.close()
    }

    @Test(arguments: Engine.allCases) func upsertsOfIdentityOnlyRealIdentityAndPartialRecordsCountAndKeepWhatTheyShould(_ engine: Engine) async throws {
        // Readings by a REAL identity, sensors by an INTEGER one.
        let (store, db) = try await engine.newStore(try StoreFixture.mapper(yaml: """
            restmap: 1
            name: readings
            entities:
              Tag: { identifiedBy: name, attributes: { name: name } }
              Reading: { identifiedBy: key, attributes: { key: { from: key, type: number }, value: { from: value, type: integer }, note: note } }
              Sensor: { identifiedBy: key, attributes: { key: { from: key, type: integer }, value: { from: value, type: integer }, note: note } }
            responses:
              - { path: /tags, entity: Tag }
              - { path: /readings, entity: Reading }
              - { path: /sensors, entity: Sensor }
            """), name: "readings")
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
        #expect(try await store.records(StoreQuery(entity: "Tag")).map { $0.name.string ?? "" } == ["a", "b", "c"])
        for entity in ["Reading", "Sensor"] {
            #expect(try await store.records(StoreQuery(entity: entity)).map { "\($0.value.int ?? 0)|\($0.note.string ?? "NULL")" } == ["2|first", "3|NULL"])
        }
        try store.close()
        // Row ids stay with their records (PostgreSQL's sequence may skip numbers: see Docs/Store.md).
        let name = engine == .sqlite ? "name" : "name #>> '{}'"   // an `any` column: jsonb in PostgreSQL
        let tagRows = try engine.sql(db, #"SELECT rm_id, \#(name) FROM "Tag" ORDER BY rm_id"#, namespace: "readings")
        #expect(tagRows.map { $0.split(separator: "|")[1] } == ["a", "b", "c"])
        if engine == .sqlite { #expect(tagRows == ["1|a", "2|b", "3|c"]) }
    }

    @Test(arguments: Engine.allCases) func foreignKeysFollowTheirRecordsAndRowsAreRewrittenOnlyWhenAValueChanged(_ engine: Engine) async throws {
        let (store, db) = try await engine.newStore(try StoreFixture.mapper(yaml: StoreFixture.repositoriesSchema), name: "repositories")
        func body(_ repositories: [(id: Int, stars: Int, owner: Int)]) -> String {
            "[" + repositories.map { #"{"id": \#($0.id), "stars": \#($0.stars), "owner": {"id": \#($0.owner), "login": "u\#($0.owner)"}}"# }
                .joined(separator: ",") + "]"
        }
        func rows() async throws -> [String] {
            try await store.records(StoreQuery(entity: "Repository", order: [("id", true)]))
                .map { "\($0.id.int ?? 0)|\($0.stars.int ?? 0)|\($0.owner.record.flatMap { $0.id.int }.map(String.init) ?? "NULL")" }
        }
        let first = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 10, 7), (2, 20, 7)]))
        #expect(first.description == "inserted 3, updated 0, unchanged 0, deleted 0 orphans, skipped 0 not newer")
        // Count the row updates the database runs, and (SQLite) those that assign the foreign-key
        // column at all (`UPDATE OF owner` fires whenever a statement assigns it, changed or not).
        switch engine {
        case .sqlite:
            _ = try engine.sql(db, """
                CREATE TABLE writes (kind TEXT);
                CREATE TRIGGER row_written AFTER UPDATE ON Repository BEGIN INSERT INTO writes VALUES ('row'); END;
                CREATE TRIGGER owner_assigned AFTER UPDATE OF owner ON Repository BEGIN INSERT INTO writes VALUES ('owner'); END;
                """)
        case .postgres:
            _ = try engine.sql(db, """
                CREATE TABLE writes (kind text);
                CREATE FUNCTION written() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO repositories.writes VALUES ('row'); RETURN NEW; END $$;
                CREATE TRIGGER row_written AFTER UPDATE ON "Repository" FOR EACH ROW EXECUTE FUNCTION written();
                """, namespace: "repositories")
        }
        func writes() throws -> [String] {
            try engine.sql(db, "SELECT kind, count(*) FROM writes GROUP BY kind ORDER BY kind", namespace: "repositories")
                .filter { engine == .sqlite || !$0.hasPrefix("owner") }
        }
        let same = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 10, 7), (2, 20, 7)]))
        #expect(same.description == "inserted 0, updated 0, unchanged 3, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == [])
        let stars = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 11, 7), (2, 20, 7)]))
        #expect(stars.description == "inserted 0, updated 1, unchanged 2, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == ["row|1"])
        let owner = try await StoreFixture.save(store, path: "/repositories", body: body([(1, 11, 7), (2, 20, 8)]))
        #expect(owner.description == "inserted 1, updated 1, unchanged 2, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == (engine == .sqlite ? ["owner|1", "row|2"] : ["row|2"]))
        let cleared = try await StoreFixture.save(store, path: "/repositories", body: #"[{"id": 2, "stars": 20, "owner": null}]"#)
        #expect(cleared.description == "inserted 0, updated 1, unchanged 0, deleted 0 orphans, skipped 0 not newer")
        #expect(try writes() == (engine == .sqlite ? ["owner|2", "row|3"] : ["row|3"]))
        #expect(try await rows() == ["1|11|7", "2|20|NULL"])
        try store.close()
    }

    @Test(arguments: Engine.allCases) func recordsWithoutIdentityAndLinksToRecordsSavedAfterThemAreWrittenInBatches(_ engine: Engine) async throws {
        let (store, db) = try await engine.newStore(try StoreFixture.mapper(yaml: """
            restmap: 1
            name: staff
            entities:
              Person:
                identifiedBy: id
                attributes: { id: { from: id, type: integer } }
                relationships: { manager: { from: manager, entity: Person } }
              Remark:
                attributes: { text: text }
                relationships: { about: { from: about, entity: Person } }
            responses:
              - { path: /people, entity: Person }
              - { path: /remarks, entity: Remark }
            """), name: "staff")
        func managers() async throws -> [String] {
            try await store.records(StoreQuery(entity: "Person", order: [("id", true)]))
                .map { "\($0.id.int ?? 0)>\($0.manager.record.flatMap { $0.id.int }.map(String.init) ?? "-")" }
        }
        // Each person's manager comes later in the body: its row does not exist when the person's is written.
        let people = #"[{"id": 1, "manager": {"id": 2}}, {"id": 2, "manager": {"id": 3}}, {"id": 3}]"#
        #expect(try await StoreFixture.save(store, path: "/people", body: people).inserted == 3)
        #expect(try await managers() == ["1>2", "2>3", "3>-"])
        let same = try await StoreFixture.save(store, path: "/people", body: people)
        #expect(same.description == "inserted 0, updated 0, unchanged 3, deleted 0 orphans, skipped 0 not newer")
        let moved = try await StoreFixture.save(store, path: "/people", body: #"[{"id": 1, "manager": {"id": 3}}, {"id": 3}]"#)
        #expect(moved.description == "inserted 0, updated 1, unchanged 1, deleted 0 orphans, skipped 0 not newer")
        #expect(try await managers() == ["1>3", "2>3", "3>-"])

        // Records without identification are inserted every time, each with its own values, in order.
        let remarks = (1...7).map { #"{"text": "remark \#($0)", "about": {"id": \#($0 % 3 + 1)}}"# }
        #expect(try await StoreFixture.save(store, path: "/remarks", body: "[" + remarks.joined(separator: ",") + "]").inserted == 7)
        #expect(try await StoreFixture.save(store, path: "/remarks", body: #"[{"text": "again"}, {"about": {"id": 1}}]"#).inserted == 2)
        let text = engine == .sqlite ? "r.text" : "r.text #>> '{}'"   // an `any` column: jsonb in PostgreSQL
        let rows = try engine.sql(db, #"SELECT \#(text), p.id FROM "Remark" r LEFT JOIN "Person" p ON p.rm_id = r.about ORDER BY r.rm_id"#, namespace: "staff")
        #expect(rows == (1...7).map { "remark \($0)|\($0 % 3 + 1)" } + ["again|", "|1"])
        try store.close()
    }

    /// A save larger than one statement's batch (5,000 records): every batch's records keep
    /// their own rows, so the path's roots and each item's tag are the ones the body gave.
    /// An integer identity's rows are matched to their records by the identity they return, a
    /// number identity's on the server (PostgreSQL): both give each record its own row.
    @Test(arguments: Engine.allCases, ["integer", "number"])
    func aSaveOfManyBatchesGivesEachRecordItsOwnRow(_ engine: Engine, identityType: String) async throws {
        let (store, _) = try await engine.newStore(try StoreFixture.mapper(yaml: """
            restmap: 1
            name: many
            entities:
              Item:
                identifiedBy: id
                attributes: { id: { from: id, type: \(identityType) }, name: name }
                relationships: { tag: { from: tag, entity: Tag } }
              Tag:
                identifiedBy: id
                attributes: { id: { from: id, type: integer } }
            responses:
              - { path: /items, entity: Item }
            """), name: "many")
        // Ids descend, so that the rows' order (by identity) is not the body's.
        func body(_ ids: [Int], renamed: (Int) -> Bool = { _ in false }) -> String {
            "[" + ids.map { #"{"id": \#($0), "name": "\#(renamed($0) ? "new" : "item") \#($0)", "tag": {"id": \#($0 % 7)}}"# }.joined(separator: ",") + "]"
        }
        let ids = Array((0..<11_000).reversed())
        let first = try await StoreFixture.save(store, path: "/items", body: body(ids))
        #expect(first.inserted == 11_000 + 7)
        let more = Array((0..<11_500).reversed())
        let second = try await StoreFixture.save(store, path: "/items", body: body(more, renamed: { $0 % 3 == 0 }))
        #expect(second.description == "inserted 500, updated 3667, unchanged 7340, deleted 0 orphans, skipped 0 not newer")
        let roots = try await store.records(forPath: "/items") ?? []
        let rootIDs = roots.map { Int($0.id.double ?? -1) }
        let firstOutOfPlace = rootIDs.indices.first { !more.indices.contains($0) || rootIDs[$0] != more[$0] }
        #expect(rootIDs.count == more.count && firstOutOfPlace == nil)
        #expect(zip(roots, rootIDs).allSatisfy { $0.tag.record?.id.int == Int64($1 % 7) })
        #expect(zip(roots, rootIDs).allSatisfy { $0.name.string == "\($1 % 3 == 0 ? "new" : "item") \($1)" })
        try store.close()
    }

    @Test(arguments: Engine.allCases) func theStoreRemembersWhatEachGetPathReturned(_ engine: Engine) async throws {
        let (store, _) = try await openBank(engine)
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: "[" + account("x", 2) + "," + account("x", 1) + "]")
        try await StoreFixture.save(store, path: "/banks/y/accounts", body: "[" + account("y", 7) + "]")
        try await StoreFixture.save(store, path: "/banks/y/accounts", body: "[]")
        #expect(try await store.records(forPath: "/banks/x/accounts")?.map { $0.number.int } == [2, 1])
        #expect(try await store.records(forPath: "/banks/y/accounts")?.isEmpty == true)
        #expect(try await store.records(forPath: "/banks/z/accounts") == nil)
        try store.close()
    }

    @Test(arguments: Engine.allCases) func valuesRoundTripExactlyAndReadBackAsTheMappedRecords(_ engine: Engine) async throws {
        let mapper = try StoreFixture.mapper(yaml: bankSchema)
        let (store, db) = try await engine.newStore(mapper, name: "bank")
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
        if engine == .sqlite {
            let raw = try engine.sql(db, "SELECT number, typeof(number), balance, typeof(balance), extra, datetime(openedAt, 'unixepoch') FROM Account")
            #expect(raw == [#"9223372036854775807|integer|12345678901234567890.123456789|text|{"n":18446744073709551616}|2023-11-14 22:13:20"#])
        } else {
            let raw = try engine.sql(db, #"SELECT number, balance, extra, "openedAt" AT TIME ZONE 'UTC' FROM "Account""#, namespace: "bank")
            #expect(raw == [#"9223372036854775807|12345678901234567890.123456789|{"n": 18446744073709551616}|2023-11-14 22:13:20"#])
        }
    }

    @Test(arguments: Engine.allCases) func searchMatchesEveryTermAsAPrefixIgnoringCaseAndDiacritics(_ engine: Engine) async throws {
        let (store, _) = try await openBank(engine)
        let people = [(1, "Ann Lee"), (2, "Zoë Annabel"), (3, "Bo Lindqvist"), (4, "annie o'brien")]
        let body = "[" + people.map { account("x", Int64($0.0), owner: $0.0, ownerName: $0.1) }.joined(separator: ",") + "]"
        try await StoreFixture.save(store, path: "/banks/x/accounts", body: body)
        func names(_ text: String) async throws -> [String] {
            try await store.search(text).map { $0.name.string ?? "" }.sorted()
        }
        #expect(try await names("ann") == ["Ann Lee", "Zoë Annabel", "annie o'brien"])
        #expect(try await names("ANN l") == ["Ann Lee"])
        #expect(try await names("zoe") == ["Zoë Annabel"])
        #expect(try await names("o'bri") == ["annie o'brien"])
        #expect(try await names("lind") == ["Bo Lindqvist"])
        #expect(try await names("nobody").isEmpty)
        #expect(try await store.search("ann", limit: 2).count == 2)
        await #expect(throws: StoreError.self) { try await store.search("ann", entity: "Card") }
        try store.close()
    }
}

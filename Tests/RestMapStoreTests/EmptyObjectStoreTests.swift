import Foundation
import RestMap
import RestMapStore
import Testing

/// An empty object `{}` standing for a related record is no record: a store keeps such a to-one
/// as null (clearing a stored one) and such a to-many element out.
@Suite struct EmptyObjectStoreTests {
    static let schema = """
        restmap: 1
        entities:
          Charge:
            identifiedBy: id
            attributes: [id]
            relationships:
              metadata: { entity: Metadata }
              refunds: { entity: Refund, many: true }
          Metadata: { attributes: [order] }
          Refund: { identifiedBy: id, attributes: [id] }
        responses: [{ keyPath: data, entity: Charge }]
        """

    @Test func anEmptyToOneIsStoredAsNullAndAnEmptyElementIsLeftOut() async throws {
        let db = try StoreFixture.folder().appendingPathComponent("charges.sqlite").path
        let store = try RecordStore(path: db, mapper: try StoreFixture.mapper(yaml: Self.schema))
        try await StoreFixture.save(store, path: "/", body: """
            {"data": [{"id": "ch_1", "metadata": {"order": "6735"}, "refunds": [{"id": "re_1"}]},
                      {"id": "ch_2", "metadata": {}, "refunds": [{}, {"id": "re_2"}]}]}
            """)
        let first = try #require(try await store.record("Charge", identifiedBy: [.string("ch_1")]))
        #expect(first.metadata.record?.order.string == "6735")
        let second = try #require(try await store.record("Charge", identifiedBy: [.string("ch_2")]))
        #expect(second.metadata.record == nil)
        #expect(second.related("refunds").map { $0.id.string } == ["re_2"])

        // The same charge later with `metadata: {}`: its stored metadata is cleared, not kept.
        try await StoreFixture.save(store, path: "/", body: #"{"data": [{"id": "ch_1", "metadata": {}}]}"#)
        let cleared = try #require(try await store.record("Charge", identifiedBy: [.string("ch_1")]))
        #expect(cleared.metadata.record == nil)
        #expect(cleared.related("refunds").map { $0.id.string } == ["re_1"])
        try store.close()
        #expect(try Program.sqlite(db, #"SELECT count(*) FROM "Refund""#) == ["2"])
    }
}

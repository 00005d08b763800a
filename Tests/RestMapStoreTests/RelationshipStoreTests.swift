import Foundation
import RestMap
import RestMapStore
import Testing

@Suite struct RelationshipStoreTests {
    @Test(arguments: Engine.allCases) func connectionsResolveAgainstTheStoreAcrossSaves(_ engine: Engine) async throws {
        let (store, db) = try await engine.newStore(try StoreFixture.mapper(schema: "edge-cases.yaml"), name: "edge")
        // The humans arrive before their cats: nothing to connect yet.
        try await StoreFixture.save(store, path: "/households",
                                    body: #"{"humans": [{"id": 1, "name": "Hannah", "cat_ids": [418, 419]}, {"id": 2, "name": "Hugo", "cat_ids": []}]}"#)
        #expect(try await store.record("Human", identifiedBy: [.integer(1)])?.related("cats").isEmpty == true)
        // The cats arrive in a later response: the array of keys connects to any of them.
        try await store.importResponse(Response(path: "/households", body: try StoreFixture.sample("edge-cases/households.json")))
        let hannah = try #require(try await store.record("Human", identifiedBy: [.integer(1)]))
        #expect(hannah.related("cats").map { $0.name.string } == ["Asia", "Roy"])
        #expect(hannah.catIDs.array == [.integer(418), .integer(419)])
        #expect(try await store.record("Human", identifiedBy: [.integer(2)])?.related("cats").isEmpty == true)
        try store.close()
        #expect(try engine.sql(db, #"SELECT count(*) FROM "Human.cats""#, namespace: "edge-cases") == ["2"])
    }

    @Test(arguments: Engine.allCases) func relationshipsToDynamicEntitiesKeepEachRecordsEntity(_ engine: Engine) async throws {
        let schema = """
            restmap: 1
            entities:
              Family:
                identifiedBy: name
                attributes: [name]
                relationships:
                  head: { from: head, entity: Person }
                  members: { from: members, entity: Person, many: true, assign: union }
              Person:
                dynamic: { by: type, cases: { Boy: Boy, Girl: Girl }, otherwise: skip }
              Boy:
                identifiedBy: id
                attributes: { id: { from: id, type: integer }, name: name }
              Girl:
                identifiedBy: id
                attributes: { id: { from: id, type: integer }, name: name }
            responses:
              - { entity: Family }
            """
        let (store, db) = try await engine.newStore(try StoreFixture.mapper(yaml: schema), name: "family")
        try await StoreFixture.save(store, path: "/", body: #"""
            {"name": "Doe", "head": {"type": "Girl", "id": 2, "name": "Mia"},
             "members": [{"type": "Boy", "id": 1, "name": "Leo"}, {"type": "Girl", "id": 2, "name": "Mia"}, {"type": "Robot", "id": 3}]}
            """#)
        // `assign: union` adds to the stored members instead of replacing them.
        try await StoreFixture.save(store, path: "/", body: #"{"name": "Doe", "members": [{"type": "Boy", "id": 4, "name": "Max"}]}"#)
        let family = try #require(try await store.record("Family", identifiedBy: [.string("Doe")]))
        #expect(family.head.record?.entity == "Girl")
        #expect(family.related("members").map { "\($0.entity) \($0.name.string ?? "")" } == ["Boy Leo", "Girl Mia", "Boy Max"])
        try store.close()
        #expect(try engine.sql(db, #"SELECT "targetEntity", target FROM "Family.members" ORDER BY position"#, namespace: "restmap") == ["Boy|1", "Girl|1", "Boy|2"])
    }
}

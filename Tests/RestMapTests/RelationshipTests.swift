import Foundation
import RestMap
import Testing

@Suite struct RelationshipTests {
    @Test func parentsSharingChildrenYieldTwoParentsAndFourChildren() throws {
        let mapper = try Fixture.mapper(yaml: """
        restmap: 1
        entities:
          Parent:
            identifiedBy: id
            attributes: { id: { from: parentID, type: integer }, name: name }
            relationships: { children: { entity: Child, many: true } }
          Child:
            identifiedBy: id
            attributes: { id: { from: childID, type: string }, name: name }
        responses:
          - { keyPath: parents, entity: Parent }
        """)
        let body = #"{"parents": [{"parentID": 1, "children": [{"childID": 1, "name": "a"}, {"childID": "2"}, {"childID": 3}]}, {"parentID": "2", "children": [{"childID": "1"}, {"childID": 4}, {"childID": 2, "name": "b"}]}]}"#
        let result = try mapper.map(Response(path: "/", body: body))
        #expect(result.records(of: "Parent").count == 2)
        let children = result.records(of: "Child")
        #expect(children.count == 4)
        #expect(children.first?.name.string == "a")  // the id-only second occurrence keeps the name
        #expect(result.records[1].children.records.map(\.id.string) == ["1", "4", "2"])
        #expect(result.records[0].children.records[1] == result.records[1].children.records[2])
    }

    static let graph = """
    restmap: 1
    entities:
      User:
        identifiedBy: id
        attributes: { id: { from: id, type: integer }, name: name, teamID: { from: team_id, type: integer }, friendIDs: { from: friend_ids, type: [integer] } }
        relationships:
          friends: { entity: User, many: true, assign: union }
          best: { from: best, entity: User }
          location: { from: "@self", entity: Coordinate }
          team: { entity: Team, connect: { teamID: id } }
          buddies: { entity: User, many: true, connect: { friendIDs: id } }
      Coordinate:
        attributes: { latitude: lat, longitude: lng }
      Team:
        identifiedBy: id
        attributes: { id: { from: id, type: integer }, name: name }
    responses:
      - { keyPath: users, entity: User }
      - { keyPath: teams, entity: Team }
    """

    @Test func recursionAggregatesAndConnections() throws {
        let mapper = try Fixture.mapper(yaml: Self.graph)
        let body = """
        {"users": [
          {"id": 1, "name": "ann", "lat": 59.9, "lng": 10.7, "team_id": 7, "friend_ids": [2, 3],
           "friends": [{"id": 2, "name": "bob", "friends": [{"id": 3, "name": "cid"}]}],
           "best": {"id": 3}},
          {"id": 2, "friends": [{"id": 1}]}
        ],
        "teams": [{"id": 7, "name": "core"}]}
        """
        let result = try mapper.map(Response(path: "/", body: body))
        #expect(result.errors.isEmpty)
        let ann = result["users"][0]
        #expect(ann.location.latitude.double == 59.9)
        #expect(result["users"][1].location.isAbsent)          // @self needs one of the child's keys
        #expect(ann.friends.records.map(\.name.string) == ["bob"])
        #expect(ann.friends.records.first?.friends.records.first?.name.string == "cid")
        #expect(ann.best.name.string == "cid")                   // merged by identity
        #expect(ann.team.name.string == "core")                  // connected although teams come later
        #expect(ann.buddies.records.map(\.id.int) == [2, 3])     // an array of keys connects to many
        let bob = result["users"][1]
        #expect(bob.friends.records.map(\.id.int) == [3, 1])     // union keeps the earlier friend
        #expect(bob.team.records.isEmpty)                        // no key, no connection
        #expect(result.records(of: "User").count == 3)
    }

    @Test func dynamicEntitiesSkipErrorAndFallback() throws {
        func mapper(_ otherwise: String) throws -> Mapper {
            try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Person: { dynamic: { by: type, cases: { Boy: Boy, Girl: Girl }, otherwise: \(otherwise) } }
              Boy: { attributes: [name] }
              Girl: { attributes: [name] }
              Thing: { attributes: [name] }
            responses: [ { entity: Person } ]
            requests: [ { entity: Thing } ]
            """)
        }
        let body = #"[{"type": "Boy", "name": "leo"}, {"type": "Robot", "name": "r2"}, {"type": "Girl", "name": "mia"}]"#
        let skipped = try mapper("skip").map(Response(path: "/", body: body))
        #expect(skipped.records.map(\.entity) == ["Boy", "Girl"])
        #expect(skipped.errors.isEmpty)
        let failed = try mapper("error").map(Response(path: "/", body: body))
        #expect(failed.records.count == 2)
        #expect(failed.errors.first?.path == "[1]")
        #expect(failed.errors.first?.message.contains("\"Robot\"") == true)
        let fallback = try mapper("Thing").map(Response(path: "/", body: body))
        #expect(fallback.records.map(\.entity) == ["Boy", "Thing", "Girl"])
    }

    @Test func keyedByTurnsObjectKeysIntoRecords() throws {
        let mapper = try Fixture.mapper(yaml: """
        restmap: 1
        entities:
          Member: { identifiedBy: login, attributes: { login: login, email: email } }
        responses: [ { keyPath: members, keyedBy: login, entity: Member } ]
        """)
        let result = try mapper.map(Response(path: "/", body: #"{"members": {"ada": {"email": "a@x"}, "grace": {"email": "g@x"}}}"#))
        #expect(result.records.map(\.login.string) == ["ada", "grace"])
        #expect(result.records.map(\.email.string) == ["a@x", "g@x"])
    }

    @Test func identificationUsesParentToDisambiguate() throws {
        let mapper = try Fixture.mapper(yaml: """
        restmap: 1
        entities:
          Album:
            identifiedBy: id
            attributes: { id: id }
            relationships: { tracks: { entity: Track, many: true } }
          Track:
            identifiedBy: [albumID, number]
            attributes: { albumID: "@parent.id", number: { from: number, type: integer }, title: title }
        responses: [ { entity: Album } ]
        """)
        let body = #"[{"id": "a", "tracks": [{"number": 1, "title": "x"}, {"number": 2}]}, {"id": "b", "tracks": [{"number": 1, "title": "y"}]}, {"id": "a", "tracks": [{"number": 2, "title": "z"}]}]"#
        let result = try mapper.map(Response(path: "/", body: body))
        let tracks = result.records(of: "Track")
        #expect(tracks.count == 3)
        #expect(tracks.map(\.title.string) == ["x", "z", "y"])
        #expect(result.records(of: "Album").count == 2)
    }
}

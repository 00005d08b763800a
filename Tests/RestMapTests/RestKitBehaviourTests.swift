import Foundation
import RestMap
import RestMapSchema
import Testing

/// The five RestKit behaviours of issue 14, and the cheap RestKit options, through `Mapper`.
@Suite struct RestKitBehaviourTests {
    // MARK: 1. No mappable values

    @Test func aRepresentationWithNoMappableValuesIsReportedNotMapped() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities: { User: { attributes: { userID: id, name: name } } }
            responses: [ { entity: User } ]
            """)
        let result = try mapper.map(Response(path: "/", body: #"[{"name": null}, {"favorite_color": "blue"}, {}]"#))
        #expect(result.records.count == 1)
        #expect(result.records[0].name.isNull)
        #expect(result.errors.map(\.path) == ["[1]", "[2]"])
        #expect(result.errors[0].message.hasSuffix("the representation's keys are: favorite_color"))
        #expect(result.errors[1].message.hasSuffix("the representation has no keys"))
    }

    @Test func aRelationshipOrADefaultlessMetadataValueMakesARepresentationMappable() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              User: { attributes: { name: name, role: { from: role, default: member } }, relationships: { pets: { entity: Pet, many: true } } }
              Pet: { attributes: [name] }
            responses: [ { entity: User } ]
            """)
        let result = try mapper.map(Response(path: "/", body: #"[{"pets": [{"name": "Rex"}]}, {"other": 1}]"#))
        #expect(result.records.count == 1)
        #expect(result.records[0].related("pets").count == 1)
        // A default is no value found in the representation: the second element still fails.
        #expect(result.errors.count == 1)
    }

    @Test func scalarsAreRepresentationsOfAnEntityThatReadsSelf() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Post: { attributes: [title], relationships: { tags: { entity: Tag, many: true }, notes: { entity: Note, many: true } } }
              Tag: { attributes: { name: "@self", position: "@metadata.mapping.collectionIndex" } }
              Note: { attributes: [text] }
            responses: [ { entity: Post } ]
            """)
        let result = try mapper.map(Response(path: "/", body: #"{"title": "t", "tags": ["a", "b"], "notes": ["x"]}"#))
        #expect(result.records[0].related("tags").map(\.name.string) == ["a", "b"])
        #expect(result.records[0].related("tags").map(\.position.int) == [0, 1])
        // Without an "@self" attribute a scalar is no representation: reported, not dropped.
        #expect(result.errors.map(\.description) == ["notes[0]: Note: expected an object representation, found string \"x\""])
    }

    // MARK: 2. @parent levels

    @Test func parentIsOneLevelPerObjectNodeAndArraysAreNotLevels() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Human:
                attributes: [name]
                relationships: { friends: { from: people.friends, entity: Friend, many: true } }
              Friend:
                attributes:
                  name: name
                  group: "@parent.group"
                  human: "@parent.@parent.name"
                  parentGroup: "@metadata.mapping.parentObject.group"
            responses: [ { entity: Human } ]
            """)
        let body = #"{"name": "Blake", "people": {"group": "close", "friends": [{"name": "Jeff"}, {"name": "Dan"}]}}"#
        let friends = try mapper.map(Response(path: "/", body: body)).records(of: "Friend")
        #expect(friends.map(\.group.string) == ["close", "close"])
        #expect(friends.map(\.human.string) == ["Blake", "Blake"])
        #expect(friends.map(\.parentGroup.string) == ["close", "close"])
    }

    @Test func elementsOfAnArrayOnTheWayAreLevels() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Team:
                attributes: [name]
                relationships: { players: { from: squads.players, entity: Player, many: true } }
              Player: { attributes: { name: name, squad: "@parent.label", team: "@parent.@parent.name" } }
            responses: [ { entity: Team } ]
            """)
        let body = #"{"name": "Reds", "squads": [{"label": "A", "players": [{"name": "x"}]}, {"label": "B", "players": [{"name": "y"}]}]}"#
        let result = try mapper.map(Response(path: "/", body: body))
        let players = result.records[0].related("players")
        #expect(players.map(\.squad.string) == ["A", "B"])
        #expect(players.map(\.team.string) == ["Reds", "Reds"])
        #expect(result.errors.isEmpty)
    }

    // MARK: 3. Full URLs and request headers

    @Test func metadataURLsAreFullURLsBuiltFromTheBaseURL() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            baseURL: http://restkit.org/api/v1
            headers: { Accept: application/json }
            entities:
              User:
                attributes:
                  name: name
                  request: "@metadata.HTTP.request.URL"
                  response: "@metadata.HTTP.response.URL"
                  accept: "@metadata.HTTP.request.headers.Accept"
                  token: "@metadata.HTTP.request.headers.X-Token"
            responses: [ { path: /users, entity: User } ]
            """)
        var response = Response(path: "/users?page=2", body: #"{"name": "Blake"}"#)
        response.requestHeaders = ["X-Token": "t"]
        let user = try mapper.map(response).records[0]
        #expect(user.request.string == "http://restkit.org/api/v1/users?page=2")
        #expect(user.response.string == "http://restkit.org/api/v1/users?page=2")
        #expect(user.accept.string == "application/json")
        #expect(user.token.string == "t")

        // A client passes the real URLs (the response one after a redirect).
        response.requestURL = "http://restkit.org/api/v1/users?page=2"
        response.responseURL = "https://cdn.restkit.org/api/v1/users?page=2"
        let redirected = try mapper.map(response).records[0]
        #expect(redirected.request.string == "http://restkit.org/api/v1/users?page=2")
        #expect(redirected.response.string == "https://cdn.restkit.org/api/v1/users?page=2")
    }

    // MARK: 4. Keyed objects

    static let settings = """
        restmap: 1
        entities:
          Preferences:
            relationships: { settings: { entity: Setting, many: true, keyedBy: [category, key] } }
          Setting: { attributes: { category: category, key: key, value: "@self" } }
        responses: [ { entity: Preferences } ]
        requests: [ { entity: Setting, keyedBy: [category, key], rootKeyPath: settings } ]
        """

    @Test func severalLevelsOfKeysMapAndSerializeBack() throws {
        let mapper = try Fixture.mapper(yaml: Self.settings)
        let body = #"{"settings":{"display":{"theme":"dark","font":12}}}"#
        let result = try mapper.map(Response(path: "/", body: body))
        let settings = result.records(of: "Setting")
        #expect(settings.map(\.category.string) == ["display", "display"])
        #expect(settings.map(\.key.string) == ["theme", "font"])
        #expect(settings.map(\.value.value) == [.string("dark"), .integer(12)])
        #expect(try mapper.requestBody(for: result.records[0]).text == body)
        // Several records of one entity, keyed by the request descriptor.
        #expect(try mapper.requestBody(for: settings).text == body)
    }

    @Test func serializingKeyedRecordsWithoutTheirKeyFails() throws {
        let mapper = try Fixture.mapper(yaml: Self.settings)
        let record = try mapper.makeRecord(entity: "Setting", values: ["category": .string("display"), "value": .integer(1)])
        #expect(throws: SerializationError.self) { try mapper.requestBody(for: [record]) }
    }

    @Test func theDryRunUnderstandsKeyedObjectsEverywhere() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Folder: { attributes: [name], relationships: { files: { entity: File, many: true, keyedBy: filename } } }
              File: { attributes: { filename: filename, size: size } }
              Member: { attributes: { login: login, role: role } }
            responses:
              - { path: /folder, entity: Folder }
              - { path: /members, keyPath: members, keyedBy: login, entity: Member }
            """)
        let folder = mapper.dryRun(Response(path: "/folder", body: #"{"name": "docs", "files": {"a.txt": {"size": 1}, "b": {"size": 2, "extra": true}}}"#))
        #expect(folder.unmappedKeys.map(\.path) == ["files.*.extra"])
        #expect(folder.emptySelections.isEmpty)
        let members = mapper.dryRun(Response(path: "/members", body: #"{"members": {"ada": {"role": "admin"}}}"#))
        #expect(members.unmappedKeys.isEmpty)
        #expect(members.emptySelections.isEmpty)
    }

    // MARK: 5. Dynamic matchers

    @Test func matchersAreTriedInOrderWithAllConditions() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Shape:
                dynamic:
                  match:
                    - { when: { kind: [circle, disc], radius: { type: number } }, entity: Circle }
                    - { when: { corners: { present: true } }, entity: Polygon }
                    - { when: { data: { type: object }, version: "2" }, entity: Wrapped }
                  otherwise: error
              Circle: { attributes: [radius] }
              Polygon: { attributes: [corners] }
              Wrapped: { attributes: [version] }
            responses: [ { entity: Shape } ]
            """)
        let body = """
            [{"kind": "disc", "radius": 2}, {"kind": "circle", "radius": "2", "corners": 0}, {"corners": null},
             {"data": {}, "version": 2}, {"data": [], "version": 2}]
            """
        let result = try mapper.map(Response(path: "/", body: body))
        #expect(result.records.map(\.entity) == ["Circle", "Polygon", "Wrapped"])
        #expect(result.errors.map(\.path) == ["[2]", "[4]"])
        #expect(result.errors[0].message.contains("'corners' is null"))
    }

    // MARK: Cheap options

    @Test func sourceKeysTransformNamesWithoutFrom() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            defaults: { sourceKeys: snake_case }
            entities:
              User:
                attributes: [firstName, avatarURL]
                relationships: { homeAddress: { entity: Address } }
              Address: { attributes: { zipCode: { type: string }, city: { from: town } } }
            responses: [ { entity: User } ]
            """)
        let body = #"{"first_name": "Ada", "avatar_url": "a.png", "home_address": {"zip_code": 12, "town": "London"}}"#
        let user = try mapper.map(Response(path: "/", body: body)).records[0]
        #expect(user.firstName.string == "Ada")
        #expect(user.avatarURL.string == "a.png")
        #expect(user.homeAddress.record?.zipCode.string == "12")
        #expect(user.homeAddress.record?.city.string == "London")
        // Serialization uses the same keys.
        #expect(try mapper.requestBody(for: user).text.contains(#""first_name":"Ada""#))
    }

    @Test(arguments: [
        (KeyStyle.snakeCase, "avatarURL", "avatar_url"), (.kebabCase, "firstName", "first-name"),
        (.camelCase, "first_name", "firstName"), (.pascalCase, "first_name", "FirstName"), (.snakeCase, "userID2", "user_id2"),
    ])
    func keyStyles(_ style: KeyStyle, _ name: String, _ key: String) {
        #expect(style.key(for: name) == key)
    }

    @Test func missingRelationshipsAreClearedOnMerge() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              User:
                identifiedBy: id
                missingRelationships: clear
                attributes: [id]
                relationships: { address: { entity: Address }, pets: { entity: Address, many: true } }
              Address: { attributes: [city] }
            responses: [ { entity: User } ]
            """)
        let result = try mapper.map(Response(path: "/", body: #"[{"id": 1, "address": {"city": "A"}, "pets": [{"city": "B"}]}, {"id": 1}]"#))
        #expect(result.records(of: "User").count == 1)
        #expect(result.records[0].address == .value(.null))
        #expect(result.records[0].pets == .records([]))
    }
}

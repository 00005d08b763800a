import Foundation
import RestMap
import RestMapSchema
import Testing

@Suite struct RoutingTests {
    @Test func patternsMatchAndExtractParameters() throws {
        let pattern = try PathPattern.parse("/databases/:databaseID/collections/{collectionID}")
        #expect(pattern.match("/databases/Test/collections/movies") == ["databaseID": "Test", "collectionID": "movies"])
        #expect(pattern.match("/databases/Test/collections/movies?limit=1") == ["databaseID": "Test", "collectionID": "movies"])
        #expect(pattern.match("/databases/Test/collections") == nil)
        #expect(pattern.match("/databases/a/b/collections/c") == nil)
        let file = try PathPattern.parse("/files/:name\\.json")
        #expect(file.match("/files/report.json") == ["name": "report"])
        #expect(file.match("/files/Joe%20Bob.json") == ["name": "Joe Bob"])
    }

    static let schema = """
    restmap: 1
    entities:
      Collection:
        identifiedBy: name
        attributes: { name: name, databaseID: "@metadata.routing.parameters.databaseID" }
        routes:
          POST: /databases/:databaseID/collections
          ANY: /databases/:databaseID/collections/:name
      Database:
        identifiedBy: name
        attributes: [name]
        relationships:
          collections: { entity: Collection, many: true, route: GET /databases/:name/collections }
    responses:
      - { method: GET, path: /databases/:databaseID/collections, entity: Collection }
      - { method: GET, path: /databases, entity: Database }
    routes:
      collections: GET /databases/:databaseID/collections
      star: PUT /user/starred/:owner/:repo
    """

    @Test func namedRoutesInterpolateAndEscape() throws {
        let router = try Fixture.mapper(yaml: Self.schema).router
        let star = try router.route(named: "star", parameters: ["owner": "Joe Bob", "repo": "a/b"])
        #expect(star == ResolvedRoute(method: "PUT", path: "/user/starred/Joe%20Bob/a%2Fb"))
        #expect(throws: RoutingError.missingParameter(name: "repo", pattern: "/user/starred/:owner/:repo")) {
            try router.route(named: "star", parameters: ["owner": "x"])
        }
        #expect {
            try router.route(named: "colections")
        } throws: { error in
            "\(error)".contains("did you mean 'collections'")
        }
    }

    @Test func namedRoutesTakeMissingParametersFromARecordAsEntityRoutesDo() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Event:
                identifiedBy: id
                attributes: { id: { from: id, type: integer }, at: { from: at, type: date }, note: note }
            responses:
              - { path: /events, entity: Event }
            routes:
              archive: PUT /archive/:at/:id
            """)
        let event = try #require(try mapper.map(Response(path: "/events", body: #"[{"id": 7, "at": 1363198221, "note": "x"}]"#)).records.first)
        let (route, used) = try mapper.router.route(named: "archive", parameters: ["id": "9"], record: event)
        // A date is ISO 8601 text, as in an entity route; given parameters win; only the path's names are used.
        #expect(route == ResolvedRoute(method: "PUT", path: "/archive/2013-03-13T18%3A10%3A21Z/9"))
        #expect(used == ["id": "9", "at": "2013-03-13T18:10:21Z"])
    }

    @Test func entityAndRelationshipRoutesUseRecordValuesAndMethodPrecedence() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let result = try mapper.map(Response(path: "/databases/Test/collections", body: #"[{"name": "movies"}]"#))
        let collection = try #require(result.records.first)
        #expect(collection.databaseID.string == "Test")
        #expect(try mapper.router.route(for: collection, method: "POST").path == "/databases/Test/collections")
        #expect(try mapper.router.route(for: collection, method: "DELETE") == ResolvedRoute(method: "DELETE", path: "/databases/Test/collections/movies"))
        let databases = try mapper.map(Response(path: "/databases", body: #"[{"name": "My DB"}]"#))
        let route = try mapper.router.route(forRelationship: "collections", of: try #require(databases.records.first))
        #expect(route == ResolvedRoute(method: "GET", path: "/databases/My%20DB/collections"))
    }
}

import Foundation
import RestMap
import Testing

@Suite struct KeyPathTests {
    static let schema = """
    restmap: 1
    baseURL: https://api.example.com/v1
    entities:
      Item:
        attributes:
          name: name
          city: address.city
          firstTag: tags.0
          tagNames: { from: tags, type: [string] }
          ownerLogins: contributors.login
          rootTitle: "@root.title"
          parentName: "@parent.name"
          index: "@metadata.mapping.collectionIndex"
          listID: "@metadata.routing.parameters.listID"
          requestedBy: "@metadata.HTTP.request.method"
          total: "@metadata.HTTP.response.headers.x-total-count"
          page: "@metadata.query.parameters.page"
          count: contributors.@count
          sum: { from: scores.@sum, type: integer }
          avg: { from: scores.@avg, type: decimal }
          min: scores.@min
          max: scores.@max
          first: contributors.@first.login
          last: contributors.@last.login
          distinct: contributors.@distinct.team
          flat: matrix.@flatten
          jsonLD: "@id"
          dotted: { from: ["a.b", "c"] }
          escaped: a\\.b.c
    responses:
      - { path: /lists/:listID/items, keyPath: items, entity: Item }
    """

    static let body = """
    {"title": "Groceries", "items": [
      {"name": "first", "address": {"city": "Oslo"}, "tags": ["x", "y"],
       "contributors": [{"login": "ann", "team": "a"}, {"login": "bob", "team": "b"}, {"login": "cid", "team": "a"}],
       "scores": [3, 4, 5], "matrix": [[1, 2], [3]], "@id": "urn:1", "a.b": {"c": "dot"}},
      {"name": "second"}
    ]}
    """

    func mapped() throws -> [Record] {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let result = try mapper.map(Response(method: "GET", path: "https://api.example.com/v1/lists/42/items?page=3",
                                             headers: ["X-Total-Count": "2"], body: Self.body))
        #expect(result.errors.isEmpty)
        return result["items"]
    }

    @Test func nestedKeysIndicesAndArrays() throws {
        let item = try #require(try mapped().first)
        #expect(item.city.string == "Oslo")
        #expect(item.firstTag.string == "x")
        #expect(item.tagNames.array == [.string("x"), .string("y")])
        #expect(item.ownerLogins.array == [.string("ann"), .string("bob"), .string("cid")])
        #expect(item.jsonLD.string == "urn:1")
        #expect(item.dotted.string == "dot")
        #expect(item.escaped.string == "dot")
    }

    @Test func rootParentAndMetadata() throws {
        let items = try mapped()
        #expect(items.map(\.index.int) == [0, 1])
        #expect(items[0].rootTitle.string == "Groceries")
        #expect(items[0].parentName.isAbsent)  // a root record has no enclosing representation
        #expect(items[0].listID.string == "42")
        #expect(items[0].requestedBy.string == "GET")
        #expect(items[0].total.string == "2")
        #expect(items[0].page.string == "3")
    }

    @Test func collectionOperators() throws {
        let item = try #require(try mapped().first)
        #expect(item.count.int == 3)
        #expect(item.sum.int == 12)
        #expect(item.avg.decimal == 4)
        #expect(item.min.int == 3)
        #expect(item.max.int == 5)
        #expect(item.first.string == "ann")
        #expect(item.last.string == "cid")
        #expect(item.distinct.array == [.string("a"), .string("b")])
        #expect(item.flat.array == [.integer(1), .integer(2), .integer(3)])
    }

    @Test func operatorsOnMissingArraysLeaveTheAttributeAbsent() throws {
        let second = try #require(try mapped().last)
        #expect(second.name.string == "second")
        #expect(second.count.isAbsent)
        #expect(second.city.isAbsent)
    }
}

@Suite struct MetadataTests {
    @Test func everyMetadataKeyIsReachable() throws {
        let mapper = try Fixture.mapper(yaml: """
        restmap: 1
        entities:
          Item:
            attributes:
              name: name
              rootKeyPath: "@metadata.mapping.rootKeyPath"
              parentTitle: "@metadata.mapping.parentObject.title"
              route: "@metadata.routing.route"
              status: "@metadata.HTTP.response.statusCode"
              url: "@metadata.HTTP.request.URL"
              agent: "@metadata.HTTP.request.headers.user-agent"
              tenant: "@metadata.user.tenant"
            relationships:
              parts: { from: parts, entity: Part }
          Part:
            attributes: { name: name, index: "@metadata.mapping.collectionIndex", parent: "@metadata.mapping.parentObject.name" }
        responses: [ { path: /lists/:id, keyPath: items, entity: Item } ]
        routes: { list: GET /lists/:id }
        """)
        var response = Response(path: "/lists/7?x=1", status: 203, body: #"{"title": "T", "items": {"name": "a", "parts": [{"name": "p"}]}}"#)
        response.requestHeaders = ["User-Agent": "restmap-test"]
        response.userMetadata = .object([Value.Member(key: "tenant", value: .string("acme"))])
        let item = try #require(try mapper.map(response).records.first)
        #expect(item.rootKeyPath.string == "items")
        #expect(item.parentTitle.isNull)  // a root record has no parent object (use @root for the document)
        #expect(item.route.string == "list")
        #expect(item.status.int == 203)
        #expect(item.url.string == "/lists/7?x=1")
        #expect(item.agent.string == "restmap-test")
        #expect(item.tenant.string == "acme")
        let part = try #require(item.parts.records.first)
        #expect(part.index.int == 0)
        #expect(part.parent.string == "a")
    }
}

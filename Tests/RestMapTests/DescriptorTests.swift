import Foundation
import RestMap
import RestMapSchema
import Testing

@Suite struct DescriptorTests {
    static let schema = """
    restmap: 1
    baseURL: https://api.example.com/api/v1
    entities:
      Article: { identifiedBy: id, attributes: { id: { from: id, type: integer }, title: title } }
      Draft: { attributes: [title] }
      Meta: { attributes: { total: total } }
    responses:
      - { path: /articles, keyPath: articles, entity: Draft }
      - { method: GET, path: /articles, keyPath: articles, entity: Article }
      - { method: GET, path: /articles, keyPath: meta, entity: Meta }
      - { method: GET, path: /articles/:id, entity: Article }
      - { method: POST, path: /articles, status: 201, entity: Article }
    errors:
      - { keyPath: errors, message: "@self" }
      - { status: 4xx, message: error, code: code }
    """

    let mapper: Mapper
    init() throws { mapper = try Fixture.mapper(yaml: Self.schema) }

    @Test func severalDescriptorsCombineAndTheMoreSpecificWins() throws {
        let result = try mapper.map(Response(path: "https://api.example.com/api/v1/articles?page=2",
                                             body: #"{"articles": [{"id": 1, "title": "a"}], "meta": {"total": 1}}"#))
        #expect(result.keyPaths.map(\.keyPath) == ["articles", "meta"])
        #expect(result["articles"].map(\.entity) == ["Article"])   // exact method beats ANY
        #expect(result.records.map(\.entity) == ["Article", "Meta"])
    }

    @Test("Key paths read beside a mapping (a page count, a token) see the same @metadata as the mapping: the parameters the path extracts too")
    func extractedValuesSeeTheRoutingParameters() throws {
        let paths = try ["@metadata.routing.parameters.id", "title"].map { try RestMapSchema.MappingKeyPath.parse($0) }
        let response = Response(path: "/api/v1/articles/9", body: #"{"id": 9, "title": "nine"}"#)
        let (result, values) = try mapper.map(response, extracting: paths)
        #expect(result.routingParameters["id"] == "9")
        #expect(values == [.string("9"), .string("nine")])
        #expect(try mapper.values(at: paths, in: response) == [.string("9"), .string("nine")])
    }

    @Test func pathPatternsStatusAndMethodSelect() throws {
        let one = try mapper.map(Response(path: "/api/v1/articles/9", body: #"{"id": 9}"#))
        #expect(one.records.first?.id.int == 9)
        #expect(one.routingParameters["id"] == "9")
        let created = try mapper.map(Response(method: "POST", path: "/articles", status: 201, body: #"{"id": 10}"#))
        #expect(created.records.first?.id.int == 10)
        #expect(throws: MappingFailure.self) {
            try mapper.map(Response(method: "POST", path: "/articles", status: 200, body: #"{"id": 10}"#))
        }
        #expect(throws: MappingFailure.self) {
            try mapper.map(Response(path: "/articles/9/", body: #"{"id": 9}"#))  // a trailing slash matters
        }
    }

    @Test func emptyBodyIsAnEmptySuccess() throws {
        let result = try mapper.map(Response(path: "/articles", body: "  \n"))
        #expect(result.isEmpty)
        #expect(result.errors.isEmpty)
    }

    @Test func nothingMappableListsKeyPathsAndTopLevelKeys() throws {
        #expect {
            try mapper.map(Response(path: "/articles", body: #"{"unexpected": []}"#))
        } throws: { error in
            guard case .noMappableRepresentations(let searched, let keys, _)? = error as? MappingFailure else { return false }
            return searched == ["articles", "meta"] && keys == ["unexpected"]
                && "\(error)".contains("No mappable object representations were found")
        }
    }

    @Test func nullKeyPathContributesNothing() throws {
        let result = try mapper.map(Response(path: "/articles", body: #"{"articles": null, "meta": {"total": 0}}"#))
        #expect(result.records.map(\.entity) == ["Meta"])
    }

    @Test func errorMessagesAreJoined() throws {
        #expect {
            try mapper.map(Response(path: "/articles", status: 422, body: #"{"errors": ["error1", "error2"]}"#))
        } throws: { error in
            guard case .errorResponse(422, let message, let errors)? = error as? MappingFailure else { return false }
            return message == "error1, error2" && errors.count == 2
        }
        #expect {
            try mapper.map(Response(path: "/articles/0", status: 404, body: #"{"error": "No such article", "code": 1005}"#))
        } throws: { error in
            guard case .errorResponse(404, let message, let errors)? = error as? MappingFailure else { return false }
            return message == "No such article" && errors.first?.code == .integer(1005)
        }
    }

    @Test func unmappableErrorKeepsTheBody() throws {
        #expect {
            try mapper.map(Response(path: "/articles", status: 500, body: "<html>oops</html>"))
        } throws: { error in
            "\(error)".contains("malformed JSON body at line 1, column 1")
        }
        #expect {
            try mapper.map(Response(path: "/articles", status: 503, body: #"{"down": true}"#))
        } throws: { error in
            guard case .unprocessableErrorResponse(503, let body)? = error as? MappingFailure else { return false }
            return body == Array(#"{"down": true}"#.utf8) && "\(error)" == "unprocessable error response (503)"
        }
    }

    @Test func malformedBodyNamesWhere() throws {
        #expect {
            try mapper.map(Response(path: "/articles", body: "{\"articles\": [1, 2,]}"))
        } throws: { error in
            guard case .malformedBody(let parse)? = error as? MappingFailure else { return false }
            return parse.line == 1 && parse.offset > 10
        }
    }
}

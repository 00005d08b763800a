import Foundation
import RestMap
import RestMapJSON
import RestMapSchema
import Testing

/// Issue 11: no body, however shaped, crashes `Mapper.map`; each gives records, an error naming
/// where, or the documented empty result.
@Suite struct HostileBodyTests {
    static func mapper(keyPath: String?) throws -> Mapper {
        let descriptor = keyPath.map { #"{ keyPath: "\#($0)", entity: Item }"# } ?? "{ entity: Item }"
        return try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Item: { attributes: [id] }
            responses:
              - \(descriptor)
            """)
    }

    static func nothingMappable(_ body: String, keyPath: String?) throws -> String? {
        let mapper = try mapper(keyPath: keyPath)
        do {
            _ = try mapper.map(Response(path: "/", body: body))
            return nil
        } catch {
            guard case .noMappableRepresentations = error else { return nil }
            return error.description
        }
    }

    // The crash of the issue: an indexed key path into an array body whose element is not an object.
    @Test(arguments: ["[5]", #"[{"a":1}]"#])
    func indexedKeyPathThroughAScalarIsNothingMappable(_ body: String) throws {
        let message = try #require(try Self.nothingMappable(body, keyPath: "0.items"))
        #expect(message.contains("0.items"))
        #expect(message.contains("the body is an array of 1 element"))
    }

    @Test(arguments: ["[5]", "[{}]", "[null]", "[]", #"[{"items": null}]"#, #"{"items": null}"#, "{}", "null"])
    func keyPathThatFindsNoRepresentationIsNothingMappable(_ body: String) throws {
        #expect(try Self.nothingMappable(body, keyPath: "items") != nil, "\(body)")
    }

    @Test(arguments: [("[]", nil), (#"{"items": []}"#, "items"), (#"[{"items": []}]"#, "items")] as [(String, String?)])
    func anEmptyCollectionIsALegitimateEmptyResult(_ body: String, keyPath: String?) throws {
        let result = try Self.mapper(keyPath: keyPath).map(Response(path: "/", body: body))
        #expect(result.records.isEmpty)
        #expect(result.errors.isEmpty)
    }

    @Test func nullInACollectionIsSkippedAndOtherValuesFailNamingWhere() throws {
        let result = try Self.mapper(keyPath: "items").map(Response(path: "/", body: #"{"items": [5, {"id": 1}, null, "x", [2]]}"#))
        #expect(result.records.map(\.id.int) == [1])
        #expect(result.errors.map(\.description) == [
            "items[0]: Item: expected an object representation, found number 5",
            #"items[3]: Item: expected an object representation, found string "x""#,
            "items[4]: Item: expected an object representation, found an array of 1 element",
        ])
    }

    @Test func aNullRepresentationNeverBecomesARecord() throws {
        let result = try Self.mapper(keyPath: "items").map(Response(path: "/", body: #"[{"items": null}, {"items": {"id": 2}}]"#))
        #expect(result.records.map(\.id.int) == [2])
        #expect(result.errors.isEmpty)
    }

    @Test func aScalarBodyIsAFailedRecord() throws {
        let result = try Self.mapper(keyPath: nil).map(Response(path: "/", body: "5"))
        #expect(result.records.isEmpty)
        #expect(result.errors.map(\.description) == ["(body): Item: expected an object representation, found number 5"])
    }

    @Test func keysOfNonObjectsAreEmpty() throws {
        let document = try JSONDocument(string: #"[{"a": 1}, 2]"#)
        #expect(document.root.keys == [])
        #expect(Array(document.root.members).isEmpty)
        #expect(document.root.members.underestimatedCount == 0)
        #expect(document.root[0]?.elements.map(\.kind) == [])
        #expect(document.root[0]?.elements.underestimatedCount == 0)
        #expect(document.root[1]?.keys == [])
    }
}

/// Every JSONTestSuite document that parses, through every descriptor of every example schema and
/// through descriptors of every key path shape: the mapping returns or throws a `MappingFailure`,
/// never traps, and never yields a record for something that is not an object.
@Suite struct HostileCorpusTests {
    static let corpus: [(name: String, bytes: [UInt8])] = {
        let directory = Fixture.root.appendingPathComponent("Tests/RestMapJSONTests/Fixtures/JSONTestSuite/test_parsing")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { ($0.hasPrefix("y_") || $0.hasPrefix("i_")) && $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            (try? Data(contentsOf: directory.appendingPathComponent(name))).map { (name, Array($0)) }
        } + [
            ("nested-shapes", Array(#"{"items": [[{"id": 1}], null, 3, {"children": [null, {"id": "2"}]}], "id": [1]}"#.utf8)),
            ("array-of-scalars", Array("[1, true, null, \"x\", [], {}]".utf8)),
        ]
    }()

    /// Descriptors of every key path shape: plain, indexed, through arrays, operators, @root,
    /// @parent, @metadata; attributes read the same shapes.
    static let shapes = """
        restmap: 1
        entities:
          Item:
            identifiedBy: id
            attributes:
              id: id
              first: items.0.id
              through: items.children.id
              count: { from: items.@count, type: integer }
              total: { from: items.@sum.id, type: decimal }
              root: "@root.id"
              parent: "@parent.id"
              route: "@metadata.routing.parameters.x"
              url: "@metadata.HTTP.request.URL"
            relationships:
              children: { from: children, entity: Item, many: true }
              firstChild: { from: items.0, entity: Item }
        responses:
          - { path: /plain, keyPath: items, entity: Item }
          - { path: /indexed, keyPath: items.0, entity: Item }
          - { path: /deep, keyPath: 0.items.0.children, entity: Item }
          - { path: /through, keyPath: items.children, entity: Item }
          - { path: /first, keyPath: items.@first, entity: Item }
          - { path: /root, keyPath: "@root.items", entity: Item }
          - { path: /parent, keyPath: "@parent", entity: Item }
          - { path: /metadata, keyPath: "@metadata.routing.parameters", entity: Item }
          - { path: /whole, entity: Item }
          - { path: /keyed, keyPath: items, keyedBy: id, entity: Item }
        errors:
          - { status: [4xx, 5xx], message: error.0.message }
        """

    static func requests(of mapper: Mapper) -> [(method: String, path: String, status: Int)] {
        var requests: [(String, String, Int)] = []
        for descriptor in mapper.schema.responses {
            let path = descriptor.path.map { pattern in
                pattern.components.map { if case .literal(let text) = $0 { text } else { "x" } }.joined()
            } ?? "/"
            requests.append((descriptor.method ?? "GET", path, descriptor.status.ranges.first?.lowerBound ?? 200))
            requests.append((descriptor.method ?? "GET", path, 500))
        }
        return requests
    }

    static func mappers() throws -> [(String, Mapper)] {
        let schemas = try FileManager.default.contentsOfDirectory(atPath: Fixture.root.appendingPathComponent("Schemas").path)
            .filter { $0.hasSuffix(".yaml") }.sorted()
        var mappers = try schemas.map { name in
            (name, try Fixture.mapperLoadingPlugins(name))
        }
        mappers.append(("key-path-shapes", try Fixture.mapper(yaml: shapes)))
        return mappers
    }

    @Test func corpusIsPresent() {
        #expect(Self.corpus.count == 95 + 35 + 2)
    }

    @Test func everyDocumentThroughEverySchemaNeverTraps() throws {
        var mapped = 0
        var failed = 0
        for (schema, mapper) in try Self.mappers() {
            let requests = Self.requests(of: mapper)
            #expect(!requests.isEmpty, "\(schema) has descriptors")
            for (name, bytes) in Self.corpus {
                for request in requests {
                    let response = Response(method: request.method, path: request.path, status: request.status,
                                            body: bytes, parameters: ["x": "1"])
                    do {
                        let result = try mapper.map(response)
                        mapped += 1
                        // Each error names where it happened or which entity failed.
                        for error in result.errors {
                            #expect(!error.description.isEmpty, "\(schema) \(name) \(request)")
                        }
                        #expect(result.records.count <= bytes.count, "\(schema) \(name): more records than bytes")
                    } catch {
                        failed += 1
                        #expect(!error.description.isEmpty, "\(schema) \(name) \(request)")
                    }
                }
            }
        }
        // Both outcomes happen over this corpus: a broken rule that made everything fail (or
        // everything succeed) would show here.
        #expect(mapped > 100)
        #expect(failed > 100)
    }
}

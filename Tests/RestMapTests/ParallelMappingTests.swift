import Foundation
@testable import RestMap
import RestMapJSON
import Testing

/// A large array mapped on several threads gives what one thread gives: the same records in the
/// same order, identity merges across the batches the array is split into, relationships assigned
/// by their policies, and the same errors in the same order.
@Suite("Mapping an array on several threads")
struct ParallelMappingTests {
    static let schema = """
        restmap: 1
        entities:
          Repo:
            identifiedBy: id
            attributes:
              id: { from: id, type: integer, required: true }
              name: name
              index: "@metadata.mapping.collectionIndex"
            relationships:
              owner: { from: owner, entity: Owner }
              tags: { from: tags, entity: Tag, many: true, assign: union }
          Owner:
            identifiedBy: login
            attributes:
              login: login
              site: site
              seen: seen
            relationships:
              pinned: { from: pinned, entity: Pin }
          Pin:
            identifiedBy: id
            attributes:
              id: { from: id, type: integer }
              name: name
          Tag:
            attributes:
              label: label
        responses:
          - { path: /repos, entity: Repo }
          - { path: /search, keyPath: result.items, entity: Repo }
        """

    /// 9,000 elements (about 1.3 MB): owners repeat all along the array with changing values,
    /// repositories repeat far apart (merging their union tags), some elements fail or are null.
    static func elements() -> [String] {
        (0..<9000).map { index in
            switch index % 997 {
            case 13: return #""not a repo""#
            case 14: return "null"
            case 15: return #"{"id": "x\#(index)", "name": "bad id"}"#
            default:
                let id = index % 5000 // ids 0..<4000 come twice, 5000 apart
                let site = index % 7 == 0 ? #", "site": "s\#(index)""# : ""
                let pinned = index % 11 == 0 ? #", "pinned": {"id": \#((index * 7) % 5000), "name": "pinned \#(index)"}"# : ""
                return #"{"id": \#(id), "name": "repo \#(index)", "owner": {"login": "u\#(index % 37)", "seen": \#(index)\#(site)\#(pinned)}, "tags": [{"label": "t\#(index % 3)"}, {"label": "n\#(index)"}]}"#
            }
        }
    }

    static func body(_ elements: [String] = elements()) -> [UInt8] { Array(("[" + elements.joined(separator: ",") + "]").utf8) }

    func mapper() throws -> Mapper { try Fixture.mapper(yaml: Self.schema) }

    @Test("The body is split: records, order, merges, relationships, errors and output equal one thread's")
    func sameAsOneThread() throws {
        let mapper = try mapper()
        let body = Self.body()
        #expect(body.count >= Mapper.parallelBodyBytes)
        let response = Response(path: "/repos", body: body)
        let serial = try mapper.map(response, options: MappingOptions(jobs: 1))
        #expect(serial.records.count > 4000)
        #expect(serial.errors.count == 20) // 10 strings, 10 ids that are not integers; nulls are no records
        // Owners merge along the whole array: the first repository's owner has its last occurrence's values.
        #expect(serial.records.first?.owner.seen.int == 8991)
        let metadata = Metadata(request: response, schema: mapper.schema, routeName: nil, routingParameters: [:])
        for jobs in [2, 3] {
            // The split path itself maps it (it does not fall back to one thread).
            let split = try #require(mapper.mapArrayInParallel(body, entity: 0, metadata: metadata, jobs: jobs))
            #expect(split.roots.count == serial.records.count)
            let parallel = try mapper.map(response, options: MappingOptions(jobs: jobs))
            #expect(parallel.records.count == serial.records.count)
            #expect(parallel.errors.map(\.description) == serial.errors.map(\.description), "jobs \(jobs)")
            let expected = RecordWriter.output(serial.records, format: .ndjson)
            #expect(RecordWriter.output(parallel.records, format: .ndjson) == expected, "jobs \(jobs)")
            for format in [RecordFormat.json, .ndjson] {
                #expect(RecordWriter.output(parallel.records, format: format, jobs: jobs) == RecordWriter.output(serial.records, format: format),
                        "rendering \(format) on \(jobs) threads")
            }
        }
    }

    @Test("A repository seen twice far apart has both occurrences' tags and its last name")
    func mergesAcrossBatches() throws {
        let result = try mapper().map(Response(path: "/repos", body: Self.body()), options: MappingOptions(jobs: 4))
        let repo = try #require(result.records.first { $0.id.int == 100 })
        #expect(repo.name.string == "repo 5100")
        #expect(repo.related("tags").compactMap(\.label.string) == ["t1", "n100", "t0", "n5100"])
        #expect(repo.owner.login.string == "u31")
    }

    @Test("Bodies that are not split map on one thread: malformed JSON fails as it does there, and so does what splitting could change")
    func notSplit() throws {
        let mapper = try mapper()
        var elements = Self.elements()
        elements[7000] = #"{"id": 1,, "name": "broken"}"#
        let broken = Response(path: "/repos", body: Self.body(elements))
        let metadata = Metadata(request: broken, schema: mapper.schema, routeName: nil, routingParameters: [:])
        #expect(mapper.mapArrayInParallel(broken.body, entity: 0, metadata: metadata, jobs: 2) == nil)
        #expect(throws: MappingFailure.self) { try mapper.map(broken, options: MappingOptions(jobs: 2)) }

        // A union that missing keys clear: the merge would depend on the order of clears and unions.
        let clearing = try Fixture.mapper(yaml: Self.schema.replacingOccurrences(of: "    identifiedBy: id\n    attributes:\n      id: { from: id, type: integer, required: true }",
                                                                                  with: "    identifiedBy: id\n    missingRelationships: clear\n    attributes:\n      id: { from: id, type: integer, required: true }"))
        #expect(clearing.mapArrayInParallel(Self.body(), entity: 0, metadata: metadata, jobs: 2) == nil)
        // Small bodies are not worth the threads.
        #expect(mapper.mapArrayInParallel(Self.body(Array(Self.elements().prefix(100))), entity: 0, metadata: metadata, jobs: 2) == nil)
    }
}

/// Cutting an array of objects at `},{` without scanning it first: a cut inside a string or a
/// nested array is caught by parsing, so the parts, when there are any, are the elements exactly.
@Suite("Cutting an array into parts")
struct ParsedPartsTests {
    /// Elements whose strings and nested arrays are full of `},{`, so many candidate cuts are wrong.
    static let tricky: [String] = (0..<60).map { index in
        switch index % 4 {
        case 0: return #"{"s": "},{", "n": \#(index)}"#
        case 1: return #"{"a": [{"x": 1},{"y": "\"},{\""}], "n": \#(index)}"#
        case 2: return #"{"e": "\\"}, {"n": \#(index)}"#
        default: return #"{"n": \#(index), "deep": [[{"k": 1}, {"k": 2}], {"z": "},{"}]}"#
        }
    }

    @Test("Whenever the parts parse, they hold the array's elements in order, for any number of parts")
    func partsAreTheElements() throws {
        let body = Array(("[" + Self.tricky.joined(separator: ",") + "]").utf8)
        let expected = try JSONDocument(bytes: body).root.elements.map { Value(json: $0) }
        var cutSomewhere = false, caughtAWrongCut = false
        for count in 2...40 {
            guard let parts = ParsedParts(body, count: count) else {
                caughtAWrongCut = true
                continue
            }
            cutSomewhere = true
            let nodes = parts.flatMap(\.nodes)
            #expect(nodes.map { Value(json: $0) } == expected, "\(count) parts")
            var index = 0
            for part in parts {
                #expect(part.firstIndex == index)
                index += part.nodes.count
            }
        }
        #expect(cutSomewhere)
        #expect(caughtAWrongCut)
    }

    @Test("No parts for what is not an array of objects, or not valid JSON")
    func noParts() throws {
        #expect(ParsedParts(Array("[1, 2, 3, 4]".utf8), count: 2) == nil)
        #expect(ParsedParts(Array(#"{"a": [{"x": 1},{"y": 2}]}"#.utf8), count: 2) == nil)
        #expect(ParsedParts(Array(#"[{"x": 1},{"y": 2}] x"#.utf8), count: 2) == nil)
        #expect(ParsedParts(Array(#"[{"x": 1},{"y": 2},]"#.utf8), count: 2) == nil)
        #expect(ParsedParts(Array(#"[{"x": 1},,{"y": 2}]"#.utf8), count: 3) == nil)
        #expect(ParsedParts(Array(#" [{"x": 1} , {"y": 2}] "#.utf8), count: 2).map { $0.flatMap(\.nodes).count } == 2)
    }
}

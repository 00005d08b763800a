import Foundation
@testable import RestMap
import RestMapJSON
import Synchronization
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
        #expect(body.count >= SplitBodyMapping.smallestBody)
        let response = Response(path: "/repos", body: body)
        let serial = try mapper.map(response, options: MappingOptions(jobs: 1))
        #expect(serial.records.count > 4000)
        #expect(serial.errors.count == 20) // 10 strings, 10 ids that are not integers; nulls are no records
        // Owners merge along the whole array: the first repository's owner has its last occurrence's values.
        #expect(serial.records.first?.owner.seen.int == 8991)
        for jobs in [2, 3, 16] {
            // The split path itself maps it (it does not fall back to one thread).
            let split = try #require(mapper.mapArrayInParallel(body, jobs: jobs))
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

    @Test("Composite and text identifications, whole parts of repeats and more threads than cores merge as one thread does")
    func mergesAnyIdentificationOnManyThreads() throws {
        let mapper = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Account:
                identifiedBy: [bank, number]
                attributes:
                  bank: bank
                  number: { from: number, type: integer }
                  balance: { from: balance, type: decimal }
                relationships:
                  holder: { from: holder, entity: Holder }
                  notes: { from: notes, entity: Note, many: true, assign: union }
              Holder:
                identifiedBy: name
                attributes:
                  name: name
                  since: { from: since, type: integer }
              Note:
                identifiedBy: id
                attributes:
                  id: { from: id, type: integer }
                  text: text
            responses:
              - { path: /repos, entity: Account }
            """)
        // 12,000 accounts in 3 banks: the second half repeats the first (in another order), so
        // whole parts are repeats; bank "a" and "b" share numbers, which must not merge.
        let elements = (0..<12_000).map { index -> String in
            let account = index < 6000 ? index : (index * 7) % 6000
            let bank = ["a", "b", "c"][account % 3]
            return #"{"bank": "\#(bank)", "number": \#(account / 3), "balance": "\#(index).5", "holder": {"name": "h\#(account % 101)", "since": \#(index)}, "notes": [{"id": \#(index % 50), "text": "n\#(index)"}]}"#
        }
        let body = Self.body(elements)
        #expect(body.count >= SplitBodyMapping.smallestBody)
        let response = Response(path: "/repos", body: body)
        let serial = try mapper.map(response, options: MappingOptions(jobs: 1))
        #expect(serial.records.count == 12_000)
        // Repeats are one record: 6,000 accounts, 101 holders, 50 notes.
        #expect(Set(serial.records.map(\.index)).count == 6000)
        let expected = RecordWriter.output(serial.records, format: .ndjson)
        for jobs in [2, 5, 16] {
            let split = try #require(mapper.mapArrayInParallel(body, jobs: jobs))
            #expect(split.session.records.count == 6000 + 101 + 50, "jobs \(jobs)")
            let parallel = try mapper.map(response, options: MappingOptions(jobs: jobs))
            #expect(parallel.records.map(\.index) == serial.records.map(\.index), "jobs \(jobs)")
            let sameOutput = RecordWriter.output(parallel.records, format: .ndjson) == expected
            #expect(sameOutput, "jobs \(jobs): the records print differently from one thread's")
        }
    }

    @Test("An array cut inside a nested array (its objects beginning with the elements' first key) is split element by element instead")
    func cutInsideANestedArray() throws {
        let mapper = try mapper()
        // Mostly nested tags, each beginning with "label" as the elements do: the cuts land inside them.
        let elements = (0..<2500).map { index in
            #"{"label": "r", "id": \#(index), "name": "repo \#(index)", "tags": ["# + (0..<40).map { #"{"label": "t\#($0)"}"# }.joined(separator: ", ") + "]}"
        }
        let body = Self.body(elements)
        #expect(body.count >= SplitBodyMapping.smallestBody)
        let parts = try #require(ArrayParts(body, count: 16))
        #expect(ArrayPartsTests.elements(of: parts).contains { $0 == nil }, "no cut landed inside a nested array")
        let response = Response(path: "/repos", body: body)
        let split = try #require(mapper.mapArrayInParallel(body, jobs: 2))
        #expect(split.roots.count == 2500)
        let serial = try mapper.map(response, options: MappingOptions(jobs: 1))
        #expect(RecordWriter.output(try mapper.map(response, options: MappingOptions(jobs: 2)).records, format: .ndjson)
                == RecordWriter.output(serial.records, format: .ndjson))
    }

    @Test("An owner repeated with the same text maps once; one with other values in between still wins, and the repeat after it wins back")
    func repeatedRepresentations() throws {
        // Owners there are identified by login and read two keys: their records depend on their text alone.
        let mapper = try Fixture.mapper(yaml: StreamingTests.schema)
        let owners = [#"{"login": "u", "site": "a"}"#, #"{"login": "u", "site": "a"}"#, #"{"login": "u", "site": "b"}"#,
                      #"{"login": "u", "site": "a"}"#, #"{"login": "v", "site": "c"}"#]
        var sites: [String?] = []
        for count in 1...owners.count {
            let body = "[" + owners.prefix(count).enumerated().map { #"{"id": \#($0.offset), "owner": \#($0.element)}"# }.joined(separator: ",") + "]"
            let result = try mapper.map(Response(path: "/repos", body: body))
            #expect(result.records.count == count)
            sites.append(result.records[0].owner.site.string)
            // Every repository of owner "u" holds the one record of "u".
            let uRecords = Set(result.records.filter { $0.owner.login.string == "u" }.map { $0.related("owner").first.map(\.index) })
            #expect(uRecords.count == 1)
        }
        #expect(sites == ["a", "a", "b", "a", "a"])
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
        #expect(mapper.mapArrayInParallel(broken.body, jobs: 2) == nil)
        #expect(throws: MappingFailure.self) { try mapper.map(broken, options: MappingOptions(jobs: 2)) }

        // A union that missing keys clear: the merge would depend on the order of clears and unions.
        let clearing = try Fixture.mapper(yaml: Self.schema.replacingOccurrences(of: "    identifiedBy: id\n    attributes:\n      id: { from: id, type: integer, required: true }",
                                                                                  with: "    identifiedBy: id\n    missingRelationships: clear\n    attributes:\n      id: { from: id, type: integer, required: true }"))
        #expect(clearing.mapArrayInParallel(Self.body(), jobs: 2) == nil)
        // With one job the parts go into one session, which keeps the order of clears and unions:
        // split, and the same as the whole document.
        #expect(clearing.mapArrayInParallel(Self.body(), jobs: 1) != nil)
        let response = Response(path: "/repos", body: Self.body())
        let whole = try clearing.mapKeepingDocument(response, options: MappingOptions()).result
        #expect(RecordWriter.output(try clearing.map(response).records, format: .ndjson) == RecordWriter.output(whole.records, format: .ndjson))
        // Small bodies are not worth the threads.
        #expect(mapper.mapArrayInParallel(Self.body(Array(Self.elements().prefix(100))), jobs: 2) == nil)
    }
}

/// A body in a regular file, read and parsed in parts by the mapping threads
/// (`Mapper.map(_:bodyIn:options:)`), maps as the same bytes in memory do.
@Suite("Mapping a body in a file part by part")
struct FileBodyMappingTests {
    /// `body` mapped from a file with `jobs` threads (`nil`: the file path declined it) and from memory.
    func mapFromFileAndMemory(_ body: [UInt8], jobs: Int, strict: Bool = false, path: String = "/repos",
                              mapper: Mapper) throws -> (file: Result<MappingResult?, MappingFailure>, memory: Result<MappingResult, MappingFailure>) {
        let options = MappingOptions(strict: strict, jobs: jobs)
        let file = try withTemporaryFile(body) { descriptor in
            let bytes = try #require(JSONPositionalBytes(descriptor: descriptor, from: 0))
            return Result { () throws(MappingFailure) in try mapper.map(Response(path: path, body: []), bodyIn: bytes, options: options) }
        }
        return (file, Result { () throws(MappingFailure) in try mapper.map(Response(path: path, body: body), options: options) })
    }

    @Test("Records, order, merges across parts, unions, failed records and their places equal memory's, on 1 to 4 threads")
    func sameAsFromMemory() throws {
        let mapper = try Fixture.mapper(yaml: ParallelMappingTests.schema)
        let body = ParallelMappingTests.body()
        for jobs in 1...4 {
            let (file, memory) = try mapFromFileAndMemory(body, jobs: jobs, mapper: mapper)
            let fromFile = try #require(try file.get(), "jobs \(jobs): the file path declined a body it splits")
            let fromMemory = try memory.get()
            #expect(fromFile.records.count > 4000)
            #expect(fromFile.errors.count == 20)
            #expect(fromFile.errors.map(\.description) == fromMemory.errors.map(\.description), "jobs \(jobs)")
            #expect(RecordWriter.output(fromFile.records, format: .json) == RecordWriter.output(fromMemory.records, format: .json), "jobs \(jobs)")
        }
        // Strings and nested arrays full of `},{` and brackets, in elements of 1 to 40 KB.
        let tricky = (0..<1500).map { index in
            #"{"id": \#(index), "name": "\#(String(repeating: "},{\\\"[", count: index % 7 == 0 ? 10_000 : 20))", "tags": [{"label": "]},{"}]}"#
        }
        let trickyBody = ParallelMappingTests.body(tricky)
        #expect(trickyBody.count >= SplitBodyMapping.smallestBody)
        for jobs in [1, 3] {
            let (file, memory) = try mapFromFileAndMemory(trickyBody, jobs: jobs, mapper: mapper)
            let fromFile = try #require(try file.get())
            #expect(fromFile.records.count == 1500)
            #expect(RecordWriter.output(fromFile.records, format: .json) == RecordWriter.output(try memory.get().records, format: .json))
        }
    }

    @Test("With strict, a failed record fails the whole body as from memory")
    func strict() throws {
        let mapper = try Fixture.mapper(yaml: ParallelMappingTests.schema)
        for jobs in [1, 2] {
            let (file, memory) = try mapFromFileAndMemory(ParallelMappingTests.body(), jobs: jobs, strict: true, mapper: mapper)
            guard case .failure(.invalidRecords(let fileErrors)) = file, case .failure(.invalidRecords(let memoryErrors)) = memory else {
                Issue.record("jobs \(jobs): strict mapping did not fail with the records' errors")
                continue
            }
            #expect(fileErrors.map(\.description) == memoryErrors.map(\.description))
        }
    }

    @Test("Declined, for memory to map or report: malformed JSON anywhere, text after the array, not an array, a key path, a small body")
    func declined() throws {
        let mapper = try Fixture.mapper(yaml: ParallelMappingTests.schema)
        let elements = ParallelMappingTests.elements()
        var broken = elements
        broken[4500] = #"{"id": 1,, "name": "broken"}"#
        let array = ParallelMappingTests.body()
        let bodies: [(String, [UInt8], String)] = [
            ("a malformed element", ParallelMappingTests.body(broken), "/repos"),
            ("a missing comma", Array(("[" + elements[..<8001].joined(separator: ",") + elements[8001...].joined(separator: ",") + "]").utf8), "/repos"),
            ("text after the array", array + Array(" [1]".utf8), "/repos"),
            ("an unterminated array", Array(array.dropLast()), "/repos"),
            ("an object", Array(#"{"result": {"items": "#.utf8) + array + Array("}}".utf8), "/search"),
            ("a small body", ParallelMappingTests.body(Array(elements.prefix(100))), "/repos"),
        ]
        for (what, body, path) in bodies {
            for jobs in [1, 2] {
                let (file, _) = try mapFromFileAndMemory(body, jobs: jobs, path: path, mapper: mapper)
                guard case .success(nil) = file else {
                    Issue.record("\(what), jobs \(jobs): mapped from the file instead of declined")
                    continue
                }
            }
        }
        // The object maps from memory (its key path is not split): declining loses nothing.
        let (_, memory) = try mapFromFileAndMemory(Array(#"{"result": {"items": "#.utf8) + array + Array("}}".utf8), jobs: 2,
                                                   path: "/search", mapper: mapper)
        #expect(try memory.get().records.count > 4000)
    }
}

extension Mapper {
    /// What `SplitBodyMapping` maps `body` into, as the response to `GET /repos`, on `jobs`
    /// threads; `nil` when it declines the body or cannot cut it.
    func mapArrayInParallel(_ body: [UInt8], jobs: Int) -> (session: MappingSession, roots: [Int])? {
        let matched = match(Response(path: "/repos", body: body))
        let options = MappingOptions(jobs: jobs)
        return SplitBodyMapping(matched, bodyByteCount: body.count, mapper: self, options: options)?.mapParts(matched, options: options)
    }
}

/// Cutting an array of objects at `},{` without scanning it first: a cut inside a string or a
/// nested array is caught by parsing, so the parts, when they all parse, are the elements exactly.
@Suite("Cutting an array into parts")
struct ArrayPartsTests {
    /// Elements whose strings and nested arrays are full of `},{`, their nested objects beginning
    /// with the key the elements begin with, so many candidate cuts are wrong.
    static let tricky: [String] = (0..<60).map { index in
        switch index % 4 {
        case 0: return #"{"s": "},{", "n": \#(index)}"#
        case 1: return #"{"s": 1, "a": [{"s": 1},{"s": "\"},{\""}], "n": \#(index)}"#
        case 2: return #"{"s": "\\"}, {"n": \#(index)}"#
        default: return #"{"s": [[{"s": 1}, {"s": 2}], {"s": "},{"}], "n": \#(index)}"#
        }
    }

    /// Each part's elements in order, or `nil` from the first part that does not parse on (none
    /// of the parts after a failed one is given).
    static func elements(of parts: ArrayParts) -> [(nodes: [JSONNode], firstIndex: Int)?] {
        (0..<parts.count).map { parts.elements(ofPart: $0) }
    }

    @Test("Whenever the parts parse, they hold the array's elements in order, for any number of parts")
    func partsAreTheElements() throws {
        let body = Array(("[" + Self.tricky.joined(separator: ",") + "]").utf8)
        let expected = try JSONDocument(bytes: body).root.elements.map { Value(json: $0) }
        var cutSomewhere = false, caughtAWrongCut = false
        for count in 2...40 {
            let parts = try #require(ArrayParts(body, count: count))
            let elements = Self.elements(of: parts)
            if let failed = elements.firstIndex(where: { $0 == nil }) {
                caughtAWrongCut = true
                #expect(elements[failed...].allSatisfy { $0 == nil }, "\(count) parts: a part after a failed one was given")
                continue
            }
            cutSomewhere = true
            #expect(elements.flatMap { $0!.nodes }.map { Value(json: $0) } == expected, "\(count) parts")
            var index = 0
            for case let (nodes, firstIndex)? in elements {
                #expect(firstIndex == index)
                index += nodes.count
            }
        }
        #expect(cutSomewhere)
        #expect(caughtAWrongCut)
    }

    @Test("Parts parsed on several threads at once know their first index")
    func partsParsedConcurrently() throws {
        let body = ParallelMappingTests.body()
        let parts = try #require(ArrayParts(body, count: 24))
        let given = Mutex([Int: (count: Int, firstIndex: Int)]())
        DispatchQueue.concurrentPerform(iterations: parts.count) { part in
            if let (nodes, firstIndex) = parts.elements(ofPart: part) {
                given.withLock { $0[part] = (nodes.count, firstIndex) }
            }
        }
        let results = given.withLock { $0 }
        #expect(results.count == parts.count)
        var index = 0
        for part in 0..<parts.count {
            let result = try #require(results[part])
            #expect(result.firstIndex == index)
            index += result.count
        }
        #expect(index == 9000)
    }

    @Test("No parts for what is not an array of objects, and parts that do not parse for what is not valid JSON")
    func noParts() throws {
        #expect(ArrayParts(Array("[1, 2, 3, 4]".utf8), count: 2) == nil)
        #expect(ArrayParts(Array(#"{"a": [{"x": 1},{"y": 2}]}"#.utf8), count: 2) == nil)
        #expect(ArrayParts(Array(#"[{"x": 1},{"y": 2}] x"#.utf8), count: 2) == nil)
        // A trailing comma is cut before and fails to parse; a double comma is no boundary.
        let trailing = try #require(ArrayParts(Array(#"[{"x": 1},{"x": 2},]"#.utf8), count: 2))
        #expect(Self.elements(of: trailing).map { $0?.nodes.count } == [1, nil])
        #expect(ArrayParts(Array(#"[{"x": 1},,{"x": 2}]"#.utf8), count: 3) == nil)
        let spaced = try #require(ArrayParts(Array(#" [{"x": 1} , {"x": 2}] "#.utf8), count: 2))
        #expect(Self.elements(of: spaced).map { $0?.nodes.count } == [1, 1])
        // Objects are cut only before the key the first element begins with: not inside `tags`.
        let nested = #"[{"id": 1, "tags": [{"label": "a"}, {"label": "b"}, {"label": "c"}]}, {"id": 2, "tags": []}]"#
        let cut = try #require(ArrayParts(Array(nested.utf8), count: 4))
        #expect(cut.count == 2)
        #expect(Self.elements(of: cut).map { $0?.nodes.count } == [1, 1])
    }
}

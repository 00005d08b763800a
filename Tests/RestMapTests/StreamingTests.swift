import Foundation
import RestMap
import RestMapJSON
import Testing

/// Streaming maps element by element and never prints other records than the whole body would.
@Suite("Streaming")
struct StreamingTests {
    static let schema = """
        restmap: 1
        entities:
          Repo:
            identifiedBy: id
            attributes:
              id: { from: id, type: integer, required: true }
              name: name
              index: "@metadata.mapping.collectionIndex"
              labels: labels
            relationships:
              owner: { from: owner, entity: Owner }
          Owner:
            identifiedBy: login
            attributes:
              login: login
              site: site
        responses:
          - { path: /repos, entity: Repo }
          - { path: /search, keyPath: result.items, entity: Repo }
        """

    /// Twelve repositories: owners repeat (identically), one element is not an object, one misses its id.
    static let elements: [String] = (0..<12).map { index in
        switch index {
        case 4: return #""not a repo""#
        case 7: return #"{"name": "no id", "owner": {"login": "ann"}}"#
        default:
            return #"{"id": \#(index), "name": "repo \"\#(index)\" [x]", "owner": {"login": "user\#(index % 3)", "site": "s\#(index % 3)"}, "labels": ["a", "b{"]}"#
        }
    }

    static var array: String { "[" + elements.joined(separator: ",\n ") + "]" }

    func mapper() throws -> Mapper { try Fixture.mapper(yaml: Self.schema) }

    /// Streams `body` and returns the output and the error texts: written by `RecordWriter.writeStream`
    /// in `format`, and the records `Mapper.mapStream` delivers for the same body (which must
    /// report the same errors).
    func stream(_ body: String, path: String = "/repos", input: StreamInput = .array, format: StreamOutputFormat = .json,
                jobs: Int = 1, batchBytes: Int = 64) throws -> (output: String, errors: [String], records: Int) {
        var output: [UInt8] = []
        var errors: [String] = []
        let options = StreamOptions(input: input, jobs: jobs, batchBytes: batchBytes)
        try RecordWriter.writeStream(Response(path: path, body: []), from: InMemorySource(Array(body.utf8)), mapper: mapper(),
                                     options: options, format: format, write: { output += $0 }, failed: { errors += $0.map(\.description) })
        var records: [Record] = []
        var recordErrors: [String] = []
        try mapper().mapStream(Response(path: path, body: []), from: InMemorySource(Array(body.utf8)), options: options) { batch in
            records += batch.records
            recordErrors += batch.errors.map(\.description)
        }
        #expect(recordErrors == errors)
        let rendered = format == .json ? RecordWriter.json(records) + "\n" : RecordWriter.ndjson(records)
        #expect(rendered == String(decoding: output, as: UTF8.self), "the delivered records render as the written output")
        return (String(decoding: output, as: UTF8.self), errors, records.count)
    }

    func whole(_ body: String, path: String = "/repos") throws -> (output: String, errors: [String]) {
        let result = try mapper().map(Response(path: path, body: body))
        return (RecordWriter.json(result.records) + "\n", result.errors.map(\.description))
    }

    @Test("A streamed array prints exactly what the whole-body mapping prints, errors included, for any batch size and jobs")
    func arrayMatchesWholeBody() throws {
        let expected = try whole(Self.array)
        #expect(expected.errors.count == 2)
        for (jobs, batchBytes) in [(1, 1), (1, 64), (3, 100), (2, 1 << 20)] {
            let streamed = try stream(Self.array, jobs: jobs, batchBytes: batchBytes)
            #expect(streamed.output == expected.output, "jobs \(jobs), batch \(batchBytes)")
            #expect(streamed.errors == expected.errors)
            #expect(streamed.records > 0)
        }
    }

    @Test("The array at a descriptor's key path streams, with members before and after it")
    func keyPathArray() throws {
        let body = #"{"total": 12, "skip": {"items": [1, {"a": "]"}]}, "result": {"page": 1, "items": \#(Self.array), "more": [true]}, "end": null}"#
        let expected = try whole(body, path: "/search")
        let streamed = try stream(body, path: "/search")
        #expect(streamed.output == expected.output)
        #expect(streamed.errors == expected.errors)
        #expect(streamed.errors.first?.hasPrefix("result.items[4]") == true)
    }

    @Test("NDJSON representations map as the elements of an array of them; errors name the line")
    func representationLines() throws {
        let lines = Self.elements.map { $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n") + "\n"
        let expected = try whole(Self.array)
        let streamed = try stream(lines, input: .representations(entity: "Repo"), jobs: 2, batchBytes: 80)
        #expect(streamed.output == expected.output)
        #expect(streamed.errors.count == 2)
        #expect(streamed.errors[0].hasPrefix("line 5: "))
        #expect(streamed.errors[1].hasPrefix("line 8: "))
    }

    @Test("NDJSON bodies: each line maps as its own response; a malformed line is reported with its number, the others print")
    func bodyLines() throws {
        let bodies = ["[" + Self.elements[0] + "]", "{ broken", "", "[" + Self.elements.joined(separator: ", ") + "]"]
        let streamed = try stream(bodies.joined(separator: "\r\n"), input: .bodies, format: .ndjson)
        var expected = ""
        for body in [bodies[0], bodies[3]] {
            expected += RecordWriter.ndjson(try mapper().map(Response(path: "/repos", body: body)).records)
        }
        #expect(streamed.output == expected)
        #expect(streamed.errors.first?.hasPrefix("line 2: malformed JSON body") == true)
        #expect(streamed.errors.count == 3)
    }

    @Test("A malformed element is reported with its index and the others still map")
    func malformedElement() throws {
        let body = #"[{"id": 1}, {"id": 2,, "name": "x"}, {"id": 3}]"#
        let streamed = try stream(body, batchBytes: 1 << 20)
        #expect(streamed.output.components(separatedBy: #""$entity":"Repo""#).count - 1 == 2)
        #expect(streamed.errors.count == 1)
        #expect(streamed.errors.first?.hasPrefix("[1]: malformed JSON") == true)
    }

    @Test("Broken framing stops the stream after the elements before it, and the JSON output is still closed")
    func brokenFraming() throws {
        var output: [UInt8] = []
        #expect {
            try RecordWriter.writeStream(Response(path: "/repos", body: []), from: InMemorySource(Array(#"[{"id": 1} {"id": 2}]"#.utf8)),
                                         mapper: mapper(), options: StreamOptions(input: .array), format: .json,
                                         write: { output += $0 }, failed: { _ in })
        } throws: { error in
            "\(error)".contains("expected ',' or ']' after an array element") && "\(error)".contains("element 0")
        }
        #expect(String(decoding: output, as: UTF8.self) == #"[{"$entity":"Repo","id":1,"index":0}]"# + "\n")
    }

    @Test("With several threads, hundreds of small batches come out in input order, and broken framing late in the input still delivers everything before it")
    func manyBatchesOnSeveralThreads() throws {
        // Distinct ids (a repeated id with another collection index would be an identity conflict).
        let elements = (0..<480).map { index in
            index % 50 == 7 ? #""not a repo""# : #"{"id": \#(index), "name": "r\#(index)", "owner": {"login": "user\#(index % 3)"}}"#
        }
        let body = "[" + elements.joined(separator: ",") + "]"
        let expected = try whole(body)
        // Broken after the last element: a missing ',' before one more.
        let broken = "[" + elements.joined(separator: ",") + #" {"id": 99}]"#
        for jobs in [2, 3, 4] {
            let streamed = try stream(body, jobs: jobs, batchBytes: 100)
            #expect(streamed.output == expected.output, "jobs \(jobs)")
            #expect(streamed.errors == expected.errors, "jobs \(jobs)")

            var output: [UInt8] = []
            #expect(throws: StreamingFailure.self) {
                try RecordWriter.writeStream(Response(path: "/repos", body: []), from: InMemorySource(Array(broken.utf8)), mapper: mapper(),
                                             options: StreamOptions(input: .array, jobs: jobs, batchBytes: 100), format: .json,
                                             write: { output += $0 }, failed: { _ in })
            }
            #expect(String(decoding: output, as: UTF8.self) == expected.output, "jobs \(jobs)")
        }
    }

    /// Streams `body` from a regular file (which the mapping threads cut themselves) and from
    /// memory: the output, the errors and the failure that ended the stream, of each.
    func fromFileAndMemory(_ body: String, path: String, jobs: Int, batchBytes: Int) throws -> [(output: String, errors: [String], failure: String?)] {
        try withTemporaryFile(Array(body.utf8)) { descriptor in
            #expect(FileDescriptorSource(descriptor: descriptor).positional != nil)
            func run(_ source: some JSONByteSource) throws -> (output: String, errors: [String], failure: String?) {
                var output: [UInt8] = []
                var errors: [String] = []
                var failure: String?
                do {
                    try RecordWriter.writeStream(Response(path: path, body: []), from: source, mapper: mapper(),
                                                 options: StreamOptions(input: .array, jobs: jobs, batchBytes: batchBytes), format: .json,
                                                 write: { output += $0 }, failed: { errors += $0.map(\.description) })
                } catch let error as StreamingFailure {
                    failure = error.description
                }
                return (String(decoding: output, as: UTF8.self), errors, failure)
            }
            return [try run(FileDescriptorSource(descriptor: descriptor)), try run(InMemorySource(Array(body.utf8)))]
        }
    }

    @Test("An array in a regular file, cut by the mapping threads, prints what it prints from memory: records, errors and broken framing")
    func arrayFromAFile() throws {
        let many = (0..<300).map { index in
            index % 40 == 7 ? #""not a repo""# : #"{"id": \#(index), "name": "r\\\"\#(index)]", "owner": {"login": "user\#(index % 3)"}}"#
        }
        let conflicting = (0..<200).map { #"{"id": \#($0), "owner": {"login": "u\#($0 % 7)", "site": "s\#($0 % 11)"}}"# }
        let bodies: [(String, String)] = [
            (Self.array, "/repos"),
            ("[" + many.joined(separator: ",\n  ") + "]\n", "/repos"),
            ("[" + conflicting.joined(separator: ",") + "]", "/repos"),
            (#"{"total": 1, "skip": {"items": [1, {"a": "]"}]}, "result": {"items": \#(Self.array), "more": [true]}, "end": null}"#, "/search"),
            ("[" + many.joined(separator: ",") + #" {"id": 999}]"#, "/repos"),
            ("[" + many[..<150].joined(separator: ",") + #", 1"a,b", "# + many[150...].joined(separator: ",") + "]", "/repos"),
            ("[" + many.joined(separator: ",") + "] trailing", "/repos"),
            ("[" + many.joined(separator: ","), "/repos"),
            ("[", "/repos"),
            ("[" + many.joined(separator: ",") + ",  ", "/repos"),
        ]
        for (body, path) in bodies {
            for (jobs, batchBytes) in [(1, 100), (2, 64), (3, 500), (4, 1 << 20)] {
                let readings = try fromFileAndMemory(body, path: path, jobs: jobs, batchBytes: batchBytes)
                let place = "\(body.prefix(30))… with \(jobs) jobs, batches of \(batchBytes)"
                #expect(readings[0].output == readings[1].output, "\(place)")
                #expect(readings[0].errors == readings[1].errors, "\(place)")
                #expect(readings[0].failure == readings[1].failure, "\(place)")
                #expect(readings[0].output.count > 2, "\(place)")
            }
        }
    }

    @Test("Records with one identification but different content in two elements: the later element fails, saying why")
    func identityConflict() throws {
        let body = #"[{"id": 1, "owner": {"login": "ann", "site": "a"}}, {"id": 2, "owner": {"login": "ann", "site": "b"}}, {"id": 3}]"#
        // Small batches hold one element each; a large one holds all three, so the left-out
        // element sits between two that print.
        for batchBytes in [64, 1 << 20] {
            let streamed = try stream(body, batchBytes: batchBytes)
            #expect(streamed.output == #"[{"$entity":"Repo","id":1,"index":0,"owner":{"$entity":"Owner","login":"ann","site":"a"}},{"$entity":"Repo","id":3,"index":2}]"# + "\n")
            #expect(streamed.errors.count == 1)
            #expect(streamed.errors.first?.contains("[1]: a record of entity 'Owner' with identification \"ann\" differs") == true)
            #expect(streamed.errors.first?.contains("--no-stream") == true)
            let lines = try stream(body, format: .ndjson, batchBytes: batchBytes)
            #expect(lines.output.split(separator: "\n").count == 2)
            #expect(lines.output.hasSuffix(#""id":3,"index":2}"# + "\n"))
        }
    }

    @Test("A record of a left-out element still counts: a later element that differs from it is left out too, on any number of threads")
    func recordsOfLeftOutElementsCount() throws {
        // [1] differs from [0] in repository 1 and brings owner bob, whom [2] gives with another
        // site: whole-body mapping would merge [2]'s bob with [1]'s, so [2] is left out as well.
        let conflicting = [#"{"id": 1, "name": "one"}"#, #"{"id": 1, "name": "uno", "owner": {"login": "bob", "site": "b"}}"#,
                           #"{"id": 3, "owner": {"login": "bob", "site": "c"}}"#, #"{"id": 4, "owner": {"login": "bob", "site": "b"}}"#]
        // Many more elements around them, so that batches are checked on several threads at once.
        let elements = (10..<400).map { #"{"id": \#($0), "owner": {"login": "user\#($0)"}}"# } + conflicting
            + (400..<800).map { #"{"id": \#($0), "owner": {"login": "user\#($0 % 20)"}}"# }
        let body = "[" + elements.joined(separator: ",") + "]"
        for jobs in [1, 2, 4] {
            let streamed = try stream(body, jobs: jobs, batchBytes: 200)
            #expect(streamed.records == elements.count - 2, "jobs \(jobs)")
            #expect(streamed.errors.count == 2, "jobs \(jobs)")
            #expect(streamed.errors.first?.contains("[391]: a record of entity 'Repo' with identification 1 differs") == true, "jobs \(jobs)")
            #expect(streamed.errors.last?.contains("[392]: a record of entity 'Owner' with identification \"bob\" differs") == true, "jobs \(jobs)")
            #expect(streamed.output.contains(#""id":4,"index":393,"owner":{"$entity":"Owner","login":"bob","site":"b"}"#), "jobs \(jobs)")
        }
    }

    @Test("connect and @root need the whole document: streaming is refused naming them")
    func refusals() throws {
        let connect = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              User:
                attributes: { id: id, teamID: team }
                relationships:
                  team: { entity: Team, connect: { teamID: id } }
              Team:
                attributes: { id: id }
            responses:
              - { entity: User }
            """)
        #expect {
            try connect.mapStream(Response(path: "/", body: []), from: InMemorySource(Array("[]".utf8)), options: StreamOptions(input: .array)) { _ in }
        } throws: { "\($0)".contains("relationship 'team' of entity 'User' uses 'connect'") && "\($0)".contains("without --stream") }
        let root = try Fixture.mapper(yaml: """
            restmap: 1
            entities:
              Item:
                attributes: { id: id, total: "@root.total" }
            responses:
              - { keyPath: items, entity: Item }
            """)
        #expect {
            try root.mapStream(Response(path: "/", body: []), from: InMemorySource([]), options: StreamOptions(input: .representations(entity: "Item"))) { _ in }
        } throws: { "\($0)".contains("attribute 'total' of entity 'Item' reads '@root'") }
    }
}

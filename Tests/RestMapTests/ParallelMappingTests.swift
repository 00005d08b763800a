import Foundation
import RestMap
import Testing

/// A large array mapped on several threads gives what one thread gives: the same records in the
/// same order, identity merges across the runs the array is split into, relationships assigned
/// by their policies, connections, and the same errors in the same order.
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
              ownerLogin: owner.login
            relationships:
              owner: { from: owner, entity: Owner }
              tags: { from: tags, entity: Tag, many: true, assign: union }
              ownerByKey: { entity: Owner, connect: { ownerLogin: login } }
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

    /// 9,000 elements: owners repeat all along the array with changing values, repositories
    /// repeat far apart (merging their union tags), some elements fail or are null.
    static func body(wrapped: Bool) -> [UInt8] {
        let elements: [String] = (0..<9000).map { index in
            switch index % 997 {
            case 13: return #""not a repo""#
            case 14: return "null"
            case 15: return #"{"id": "x\#(index)", "name": "bad id"}"#
            default:
                let id = index % 5000 // ids 0..<4000 come twice, 4000 apart
                let site = index % 7 == 0 ? #", "site": "s\#(index)""# : ""
                let pinned = index % 11 == 0 ? #", "pinned": {"id": \#((index * 7) % 5000), "name": "pinned"}"# : ""
                return #"{"id": \#(id), "name": "repo \#(index)", "owner": {"login": "u\#(index % 37)", "seen": \#(index)\#(site)\#(pinned)}, "tags": [{"label": "t\#(index % 3)"}, {"label": "n\#(index)"}]}"#
            }
        }
        let array = "[" + elements.joined(separator: ",") + "]"
        return Array((wrapped ? #"{"result": {"items": \#(array)}}"# : array).utf8)
    }

    @Test("Records, order, merges, relationships, connections and errors equal one thread's", arguments: [false, true])
    func sameAsOneThread(wrapped: Bool) throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let response = Response(path: wrapped ? "/search" : "/repos", body: Self.body(wrapped: wrapped))
        let serial = try mapper.map(response, options: MappingOptions(jobs: 1))
        #expect(serial.records.count > 8000)
        #expect(serial.errors.count == 20) // 10 strings, 10 ids that are not integers; nulls are no records
        // Owners merge along the whole array: the first repository's owner has its last occurrence's values.
        #expect(serial.records.first?.owner.seen.int == 8991)
        for jobs in [2, 3, 8] {
            let parallel = try mapper.map(response, options: MappingOptions(jobs: jobs))
            #expect(parallel.records.count == serial.records.count)
            #expect(parallel.errors.map(\.description) == serial.errors.map(\.description), "jobs \(jobs)")
            #expect(RecordWriter.output(parallel.records, format: .ndjson) == RecordWriter.output(serial.records, format: .ndjson),
                    "jobs \(jobs)")
            for format in [RecordFormat.json, .ndjson] {
                #expect(RecordWriter.output(parallel.records, format: format, jobs: jobs) == RecordWriter.output(serial.records, format: format),
                        "rendering \(format) on \(jobs) threads")
            }
        }
    }

    @Test("A repository seen twice far apart has both occurrences' tags and its last name")
    func mergesAcrossRuns() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let result = try mapper.map(Response(path: "/repos", body: Self.body(wrapped: false)), options: MappingOptions(jobs: 4))
        let repo = try #require(result.records.first { $0.id.int == 100 })
        #expect(repo.name.string == "repo 5100")
        #expect(Set(repo.related("tags").compactMap(\.label.string)).isSuperset(of: ["n100", "n5100"]))
        // The connection runs over the merged records: the owner of the last occurrence.
        #expect(repo.ownerLogin.string == "u31")
        #expect(repo.ownerByKey.login.string == "u31")
        #expect(repo.ownerByKey.record == repo.owner.record)
    }
}

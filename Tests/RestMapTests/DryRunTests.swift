import Foundation
import RestMap
import Testing

@Suite struct DryRunTests {
    static let schema = """
    restmap: 1
    entities:
      Repo:
        attributes: { id: { from: id, type: integer }, name: name, stars: stargazers, ownerName: owner.login }
        relationships: { license: { from: license, entity: License } }
      License:
        attributes: [key]
    responses: [ { keyPath: repos, entity: Repo } ]
    """

    @Test func reportsUnmappedKeysEmptySelectionsAndFailedRecords() throws {
        let mapper = try Fixture.mapper(yaml: Self.schema)
        let body = """
        {"repos": [
          {"id": 1, "name": "a", "owner": {"login": "x", "type": "User"}, "url": "u", "license": {"key": "mit", "spdx": "MIT"}},
          {"id": "bad", "name": "b"}
        ], "total": 2}
        """
        let report = mapper.dryRun(Response(path: "/", body: body))
        #expect(report.failure == nil)
        #expect(report.failedRecords.map(\.path) == ["repos[1].id"])
        #expect(report.unmappedKeys.map(\.path) == ["repos[].owner.type", "repos[].url", "repos[].license.spdx"])
        let offset = try #require(report.unmappedKeys.first?.byteOffset)
        #expect(Array(body.utf8)[offset] == UInt8(ascii: "\""))
        #expect(report.emptySelections.map { "\($0.entity).\($0.attribute)" } == ["Repo.stars"])
        #expect(report.emptySelections.first?.representations == 2)
    }

    @Test func reportsWhyNothingMapped() throws {
        let report = try Fixture.mapper(yaml: Self.schema).dryRun(Response(path: "/", body: #"{"items": []}"#))
        #expect(report.result == nil)
        #expect(report.failure.map { "\($0)" }?.contains("No mappable object representations") == true)
    }

    @Test func walksTheRecordsOfAKeyedCollection() throws {
        let mapper = try Fixture.mapper(yaml: """
        restmap: 1
        entities:
          Member: { attributes: { login: login, email: email } }
        responses: [ { keyPath: members, keyedBy: login, entity: Member } ]
        """)
        let report = mapper.dryRun(Response(path: "/", body: #"{"members": {"ada": {"email": "a@x"}, "grace": {"email": "g@x", "age": 3}}}"#))
        #expect(report.result?.records.count == 2)
        #expect(report.unmappedKeys.map(\.path) == ["members.*.age"])  // the keys of a keyed object show as `*`
        #expect(report.emptySelections.isEmpty)
    }
}

import Foundation
import RestMap
import Testing

/// Seed stories whose schemas name plugins: the mapper loads them from disk (the plugin
/// libraries sit next to the test executable in the build folder).
@Suite struct PluginStoryTests {
    func mapper(_ schema: String) throws -> Mapper {
        try Fixture.mapperLoadingPlugins(schema)
    }

    func map(_ schema: String, _ sample: String, path: String, method: String = "GET", status: Int = 200,
             headers: [String: String] = [:], parameters: [String: String] = [:]) throws -> MappingResult {
        try mapper(schema).map(Response(method: method, path: path, status: status, headers: headers,
                                        body: try Fixture.sample(sample), parameters: parameters))
    }

    @Test func stashboardServicesCarryNamesMessagesAndRFC1123Instants() throws {
        let result = try map("stashboard.yaml", "stashboard/services.json", path: "/services")
        #expect(result.errors.isEmpty)
        let services = result["services"]
        #expect(services.map(\.name.string) == ["Aaron", "Alex", "Arrow"])
        #expect(services.map(\.eventMessage.string) == ["All systems operational.", "Alex is operational.",
                                                        "All databases accessible and operating normally."])
        // "Wed, 13 Mar 2013 18:10:21 GMT"
        #expect(services[0].timestamp.date == Date(timeIntervalSince1970: 1_363_198_221))
        #expect(result.records(of: "Status").count == 1)
    }

    @Test func mongoHQCollectionsTakeTheDatabaseFromRoutingMetadata() throws {
        let result = try map("mongohq.yaml", "mongohq/collections.json", path: "/databases/Test/collections")
        #expect(result.records.count == 2)
        #expect(result.records.allSatisfy { $0.databaseID.string == "Test" })
    }

    @Test func mongoHQDocumentIdsFromBothShapes() throws {
        let result = try map("mongohq.yaml", "mongohq/documents.json", path: "/databases/Test/collections/movies/documents")
        #expect(result.errors.isEmpty)
        #expect(result.records.map(\.documentID.string) == ["51e0f0a6e4b0d1d6b5e1c3a1", "51e0f0a6e4b0d1d6b5e1c3a2", "manually-assigned-id-243"])
    }

    @Test func mongoHQErrorCarriesMessageAndCode() throws {
        #expect {
            try map("mongohq.yaml", "mongohq/error_1005.json", path: "/databases/Nope/collections", status: 404)
        } throws: { error in
            guard case .errorResponse(404, let message, let errors)? = error as? MappingFailure else { return false }
            return message == "No matching database associated with this account" && errors.first?.code == .integer(1005)
        }
    }

    @Test func gitHubStarredMergesOwnersAndParsesDates() throws {
        let result = try map("github.yaml", "github/starred.json", path: "/users/octocat/starred")
        #expect(result.errors.isEmpty)
        #expect(result.records.count == 3)
        #expect(result.records(of: "User").count == 2)
        #expect(result.records.first?.owner.login.string == "octocat")
        let formatter = ISO8601DateFormatter()
        #expect(result.records.first?.pushedAt.date == formatter.date(from: "2011-01-26T19:06:43Z"))
    }

    @Test func rsapiManyPayloadYieldsBothClasses() throws {
        let result = try map("rsapi.yaml", "rsapi/many.json", path: "/path/to/objects")
        #expect(result.records.map(\.entity) == ["User", "Group", "Group"])
    }

    @Test func imdbCSVMapsWithExactNumbers() throws {
        let result = try map("imdb.yaml", "imdb/top250.csv", path: "/top250.csv", headers: ["Content-Type": "text/csv"])
        #expect(result.errors.isEmpty)
        #expect(result.records.count == 8)
        #expect(result.records.first?.votes.int == 234_310)
        #expect(result.records[3].title.string == "Spring, Summer, Fall, Winter... and Spring (2003)")
        #expect(result.records.compactMap(\.votes.int).reduce(0, +) == 891_561)
    }

    @Test func edgeCaseUserKeepsItsSixtyFourBitIdAndParsesItsBirthdate() throws {
        let result = try map("edge-cases.yaml", "edge-cases/user_big_id.json", path: "/users/69726278940360707")
        let user = try #require(result.records.first)
        #expect(user.id.int == 69_726_278_940_360_707)
        #expect(user.nickname.string == "anonymous")
        #expect(user.birthdate.date == ISO8601DateFormatter().date(from: "1982-11-27T00:00:00Z"))
        #expect(user.weight.double == 131.3)
    }
}

@Suite struct CSVDryRunTests {
    @Test func dryRunOfACSVSampleReportsItsUnmappedColumns() throws {
        let mapper = try Fixture.mapperLoadingPlugins("imdb.yaml")
        let body = Array("Rank,Rating,Title,Votes,Director\n241,8,Mystic River (2003),\"234,310\",Clint Eastwood\n".utf8)
        let report = mapper.dryRun(Response(path: "/top250.csv", headers: ["Content-Type": "text/csv"], body: body))
        #expect(report.failure == nil)
        #expect(report.result?.records.count == 1)
        #expect(report.unmappedKeys.map(\.path) == ["[].Director"])
    }
}

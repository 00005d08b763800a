import Foundation
import RestMapStore
@testable import RestMapStorePostgres
import RestMapTestSupport
import Testing

/// Reading a PostgreSQL URL as libpq does, and keeping its password out of every message.
@Suite struct PostgresLocationTests {
    @Test func theURLsPartsDefaultsAndSSLModeAreReadAndThePasswordIsNeverShown() throws {
        let location = try PostgresLocation(url: "postgresql://ann:s%40cret@db.example.com:6543/ware%20house?sslmode=verify-full", environment: [:])
        #expect(location.user == "ann" && location.host == "db.example.com" && location.port == 6543 && location.database == "ware house")
        #expect(location.sslMode == "verify-full" && location.hasPassword)
        #expect(location.password == "s@cret", "the URL's password is percent-decoded")
        #expect(location.description == "postgres://ann@db.example.com:6543/ware house?sslmode=verify-full")
        let defaults = try PostgresLocation(url: "postgres://localhost", environment: ["USER": "bo", "PGPORT": "5433"])
        #expect(defaults.user == "bo" && defaults.port == 5433 && defaults.database == "bo" && defaults.sslMode == "prefer" && !defaults.hasPassword)
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://a:pw@h/d?sslmode=sometimes", environment: [:]) }
        #expect {
            try PostgresLocation(url: "postgres://a:pw@h/d?color=blue", environment: [:])
        } throws: { error in "\(error)".contains("unknown URL parameter 'color'") && !"\(error)".contains("pw@") }
    }

    @Test func thePasswordComesFromPGPASSWORDOrThePasswordFile() throws {
        #expect(try PostgresLocation(url: "postgres://ann@h/d", environment: ["PGPASSWORD": "x"]).hasPassword)
        #expect(try PostgresLocation(url: "postgres://ann@h/d", environment: ["PGPASSWORD": "x"]).password == "x")
        let file = try StoreFixture.folder().appendingPathComponent("pgpass")
        try "# comment\nother:5432:*:ann:no\nh:5432:d:ann:pa\\:ss\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(try PostgresLocation(url: "postgres://ann@h/d", environment: ["PGPASSFILE": file.path]).hasPassword)
        #expect(try PostgresLocation(url: "postgres://ann@h/d", environment: ["PGPASSFILE": file.path]).password == "pa:ss",
                "the matching line's escaped colon is unescaped")
        #expect(try !PostgresLocation(url: "postgres://bo@h/d", environment: ["PGPASSFILE": file.path]).hasPassword)
        #expect(try !PostgresLocation(url: "postgres://ann@h:5999/d", environment: ["PGPASSFILE": file.path]).hasPassword)
    }

    @Test func aFailedConnectionIsReportedWithoutThePassword() async throws {
        // The test server trusts loopback connections, so a wrong password cannot fail there;
        // a missing database does, and the message names the URL without its password.
        let database = try PostgresServer.freshDatabase()
        let wrong = database.replacingOccurrences(of: "postgres@", with: "postgres:top-secret@").replacingOccurrences(of: "/restmap_test_", with: "/missing_")
        await #expect {
            try await RecordStore.open(postgres: wrong, mapper: try StoreFixture.mapper(schema: "mongohq.yaml"))
        } throws: { error in
            let message = "\(error)"
            return message.contains("cannot connect") && message.contains("does not exist") && !message.contains("top-secret")
        }
    }
}

import Foundation
import RestMapJSON
import RestMapTestSupport
import Testing

@Suite("The /sync API")
struct SyncAPITests {
    /// 2025-12-01T00:00:00Z, where the generated events and notes start.
    static let spreadStart = 1_764_547_200

    /// ISO 8601 UTC text of `seconds` after `spreadStart`.
    static func time(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(spreadStart + seconds)))
    }

    /// When default-dataset event (or note) `k` was last updated: k minutes after `spreadStart`.
    static func minute(_ k: Int) -> String { time(60 * k) }

    static func ids(_ list: JSONNode) -> [Int] { list.elements.compactMap { $0["id"]?.int } }

    /// The ids of every page, following `Link rel="next"` from `target`; also the targets requested.
    static func allPages(_ server: SampleServer, _ target: String) async throws -> (ids: [Int], targets: [String]) {
        var ids: [Int] = []
        var targets: [String] = []
        var next: String? = target
        while let target = next {
            targets.append(target)
            let reply = try await server.send("GET", target)
            #expect(reply.status == 200, "\(target): \(reply.text)")
            ids += Self.ids(try reply.json())
            next = reply.links["next"].map { String($0.dropFirst(server.baseURL.count)) }
            if targets.count > 1_000 { throw Failure("more than 1,000 pages from \(target)") }
        }
        return (ids, targets)
    }

    @Test func accountsAreListedWholeOrByPage() async throws {
        try await SampleServer.with { server async throws in
            let reply = try await server.send("GET", "/sync/accounts")
            #expect(reply.header("Link") == nil)
            let accounts = try reply.json()
            #expect(Self.ids(accounts) == [1, 2, 3])
            #expect(accounts[1]?["name"]?.stringValue == "Account 2")
            #expect(accounts.column("updated_at") == Array(repeating: "2026-01-01T00:00:00Z", count: 3))

            let first = try await server.send("GET", "/sync/accounts?per_page=2")
            #expect(Self.ids(try first.json()) == [1, 2])
            #expect(first.links["next"] == "\(server.baseURL)/sync/accounts?page=2&per_page=2")
            let second = try await server.send("GET", "/sync/accounts?page=2&per_page=2")
            #expect(Self.ids(try second.json()) == [3])
            #expect(second.links["next"] == nil)
        }
    }

    @Test func eventsOfAnAccountInUpdateOrder() async throws {
        try await SampleServer.with { server async throws in
            let reply = try await server.send("GET", "/sync/accounts/2/events")
            let events = try reply.json()
            #expect(Self.ids(events) == Array(21...40))
            #expect(events.column("account_id") == Array(repeating: "2", count: 20))
            #expect(events.column("title") == (21...40).map { "Event \($0)" })
            #expect(events.column("updated_at") == (21...40).map(Self.minute))
            #expect(reply.links["next"] == nil)
            #expect(Self.ids(try await server.json("GET", "/sync/accounts/3/events")) == Array(41...60))
        }
    }

    @Test func eachFilterAndTheirCombination() async throws {
        try await SampleServer.with { server async throws in
            func ids(_ query: String) async throws -> [Int] {
                Self.ids(try await server.json("GET", "/sync/accounts/2/events?" + query))
            }
            #expect(try await ids("since=\(Self.minute(25))") == Array(25...40))
            #expect(try await ids("updated_after=\(Self.minute(25))") == Array(26...40))
            #expect(try await ids("until=\(Self.minute(25))") == Array(21...24))
            #expect(try await ids("since=\(Self.minute(25))&until=\(Self.minute(30))") == Array(25...29))
            #expect(try await ids("since=\(Self.minute(25))&updated_after=\(Self.minute(27))&until=\(Self.minute(30))") == [28, 29])
            #expect(try await ids("updated_after=\(Self.minute(27))&since=\(Self.minute(25))") == Array(28...40))
            #expect(try await ids("since=\(Self.minute(30))&until=\(Self.minute(25))") == [])
            #expect(try await ids("since=2030-01-01T00:00:00Z") == [])
            #expect(try await ids("until=2020-01-01T00:00:00Z") == [])
            // Fractions and offsets (a `+` is sent as %2B; an unencoded one arrives as a space and is read as `+`).
            #expect(try await ids("since=2025-12-01T00:25:00.5Z") == Array(26...40))
            #expect(try await ids("since=2025-12-01T01:25:00%2B01:00") == Array(25...40))
            #expect(try await ids("since=2025-12-01T01:25:00+01:00") == Array(25...40))
            #expect(try await ids("until=2025-11-30T23:30:00-01:00") == Array(21...29))
        }
    }

    @Test func windowsIncludeTheirStartAndExcludeTheirEnd() async throws {
        try await SampleServer.with { server async throws in
            // [since, until) windows of 7 minutes, the first ending at an event's time: each event in exactly one.
            var ids: [Int] = []
            for start in stride(from: 0, to: 70, by: 7) {
                let window = try await server.json("GET", "/sync/accounts/1/events?since=\(Self.minute(start))&until=\(Self.minute(start + 7))")
                #expect(Self.ids(window) == (1...20).filter { $0 >= start && $0 < start + 7 })
                ids += Self.ids(window)
            }
            #expect(ids == Array(1...20))
            let edge = try await server.json("GET", "/sync/accounts/1/events?since=\(Self.minute(7))&until=\(Self.minute(8))")
            #expect(Self.ids(edge) == [7])
            let empty = try await server.json("GET", "/sync/accounts/1/events?since=\(Self.minute(7))&until=\(Self.minute(7))")
            #expect(Self.ids(empty) == [])
        }
    }

    @Test func pagesFollowTheLinkAndKeepTheFilters() async throws {
        try await SampleServer.with { server async throws in
            let since = Self.minute(23)
            let until = Self.minute(38)
            let (ids, targets) = try await Self.allPages(server, "/sync/accounts/2/events?since=\(since)&until=\(until)&per_page=4")
            #expect(ids == Array(23...37))
            #expect(targets.count == 4)
            for target in targets.dropFirst() {
                #expect(target.contains("since=2025-12-01T00%3A23%3A00Z") && target.contains("until=2025-12-01T00%3A38%3A00Z"), "\(target)")
                #expect(target.contains("per_page=4"))
            }
            // The default page is 100 events, the largest 1,000.
            let clamped = try await server.send("GET", "/sync/accounts/2/events?per_page=5000")
            #expect(clamped.links["last"]?.hasSuffix("per_page=1000") == true)
            #expect(try await server.send("GET", "/sync/accounts/2/events").links["last"]?.hasSuffix("per_page=100") == true)
            #expect(Self.ids(try await server.json("GET", "/sync/accounts/2/events?page=9&per_page=4")) == [])
            #expect(try await server.json("GET", "/sync/accounts/2/events?page=0", status: 400)["error"] != nil)
        }
    }

    @Test func mutationChangesExactlyWhatItSaysAndAdvancesTheClock() async throws {
        try await SampleServer.with { server async throws in
            let result = try await server.json("POST", "/sync/_mutate?updates=4&inserts=5&deletes=3&seed=42&notes=1")
            #expect(result["clock"]?.stringValue == "2026-01-01T01:00:00Z")
            func list(_ key: String) throws -> [Int] { try #require(result[key]).elements.compactMap(\.int) }
            let updatedIDs = try list("updated")
            let deletedIDs = try list("deleted")
            let insertedIDs = try list("inserted")
            let notes = try list("notes")
            #expect(updatedIDs.count == 4 && Set(updatedIDs).count == 4 && updatedIDs == updatedIDs.sorted())
            #expect(deletedIDs.count == 3 && Set(deletedIDs).count == 3)
            #expect(Set(updatedIDs).isDisjoint(with: deletedIDs))
            #expect((updatedIDs + deletedIDs).allSatisfy { (1...60).contains($0) })
            #expect(insertedIDs == [61, 62, 63, 64, 65])
            #expect(notes.count == 3)

            var all: [Int: JSONNode] = [:]
            for account in 1...3 {
                let events = try await server.json("GET", "/sync/accounts/\(account)/events")
                let times = events.column("updated_at")
                #expect(zip(times, Self.ids(events)).map { "\($0.0)#\(String(format: "%05d", $0.1))" }.isSorted, "account \(account) out of order")
                for event in events.elements { all[event["id"]!.int!] = event }
            }
            #expect(Set(all.keys) == Set(1...65).subtracting(deletedIDs))
            for (id, event) in all {
                if updatedIDs.contains(id) {
                    #expect(event["updated_at"]?.stringValue == "2026-01-01T01:00:00Z")
                    #expect(event["title"]?.stringValue == "Event \(id) (edited)")
                } else if insertedIDs.contains(id) {
                    #expect(event["updated_at"]?.stringValue == "2026-01-01T01:00:00Z")
                    #expect(event["title"]?.stringValue == "Event \(id)")
                    #expect(event["account_id"]?.int == [61: 1, 62: 2, 63: 3, 64: 1, 65: 2][id])
                } else {
                    #expect(event["updated_at"]?.stringValue == Self.minute(id))
                    #expect(event["title"]?.stringValue == "Event \(id)")
                }
            }
            // An incremental sync from the last time seen gets exactly the changes.
            var changed: [Int] = []
            for account in 1...3 {
                changed += Self.ids(try await server.json("GET", "/sync/accounts/\(account)/events?updated_after=\(Self.minute(60))"))
            }
            #expect(changed.sorted() == (updatedIDs + insertedIDs).sorted())
            // One note per account touched.
            var touched: [Int] = []
            for account in 1...3 {
                let list = try await server.json("GET", "/sync/accounts/\(account)/notes")
                touched += list.elements.filter { $0["updated_at"]?.stringValue == "2026-01-01T01:00:00Z" }.compactMap { $0["id"]?.int }
            }
            #expect(touched == notes)

            let second = try await server.json("POST", "/sync/_mutate?inserts=1")
            #expect(second["clock"]?.stringValue == "2026-01-01T02:00:00Z")
            #expect(second["inserted"]?.elements.compactMap(\.int) == [66])
            #expect(second["updated"]?.count == 0 && second["deleted"]?.count == 0 && second["notes"]?.count == 0)
            let last = try await server.json("GET", "/sync/accounts/1/events?since=2026-01-01T02:00:00Z")
            #expect(Self.ids(last) == [66])
        }
    }

    @Test func resetRestoresTheStartAndMutationsAreDeterministic() async throws {
        try await SampleServer.with { server async throws in
            let initial = try await server.send("GET", "/sync/accounts/1/events").text
            let initialNotes = try await server.send("GET", "/sync/accounts/1/notes").text
            let first = try await server.send("POST", "/sync/_mutate?updates=5&inserts=2&deletes=5&seed=7&notes=1").text
            _ = try await server.json("POST", "/sync/_mutate?updates=1&seed=8")
            let reset = try await server.send("POST", "/sync/_reset")
            #expect(reset.status == 200 && reset.text == "{}")
            #expect(try await server.send("GET", "/sync/accounts/1/events").text == initial)
            #expect(try await server.send("GET", "/sync/accounts/1/notes").text == initialNotes)
            // Same state, same seed: same mutation, clock and ids included.
            #expect(try await server.send("POST", "/sync/_mutate?updates=5&inserts=2&deletes=5&seed=7&notes=1").text == first)
            let other = try await server.send("POST", "/sync/_reset")
            #expect(other.status == 200)
            #expect(try await server.send("POST", "/sync/_mutate?updates=5&inserts=2&deletes=5&seed=9&notes=1").text != first)
        }
    }

    @Test func errorsAnswerJSON() async throws {
        try await SampleServer.with { server async throws in
            for target in ["/sync/accounts/4/events", "/sync/accounts/0/events", "/sync/accounts/x/events", "/sync/accounts/9/notes"] {
                #expect(try await server.json("GET", target, status: 404)["error"]?.stringValue == "Account not found")
            }
            for name in ["since", "updated_after", "until"] {
                for value in ["yesterday", "2026-01-01", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T24:00:00Z"] {
                    let error = try await server.json("GET", "/sync/accounts/1/events?\(name)=\(value)", status: 400)
                    #expect(error["error"]?.stringValue?.hasPrefix("\(name): expected an ISO 8601 date-time") == true, "\(name)=\(value)")
                }
            }
            #expect(try await server.json("POST", "/sync/_mutate?updates=-1", status: 400)["error"] != nil)
            #expect(try await server.json("POST", "/sync/_mutate?updates=40&deletes=21", status: 400)["error"] != nil)
            #expect(try await server.json("POST", "/sync/_mutate?seed=x", status: 400)["error"] != nil)
            #expect(try await server.json("POST", "/sync/_mutate?notes=2", status: 400)["error"] != nil)
            // A refused mutation changes nothing, the clock included.
            #expect(try await server.json("POST", "/sync/_mutate")["clock"]?.stringValue == "2026-01-01T01:00:00Z")
            #expect(try await server.send("GET", "/sync/_mutate").status == 405)
        }
    }

    @Test func notesIgnoreTheFilters() async throws {
        try await SampleServer.with { server async throws in
            let notes = try await server.json("GET", "/sync/accounts/2/notes")
            #expect(Self.ids(notes) == Array(6...10))
            #expect(notes.column("body") == (6...10).map { "Note \($0)" })
            #expect(notes.column("updated_at") == (6...10).map(Self.minute))
            #expect(notes.column("account_id") == Array(repeating: "2", count: 5))
            for query in ["since=2030-01-01T00:00:00Z", "updated_after=2030-01-01T00:00:00Z", "until=2020-01-01T00:00:00Z", "since=nonsense"] {
                #expect(Self.ids(try await server.json("GET", "/sync/accounts/2/notes?" + query)) == Array(6...10), "\(query)")
            }
            let (ids, targets) = try await Self.allPages(server, "/sync/accounts/2/notes?since=2030-01-01T00:00:00Z&per_page=2")
            #expect(ids == Array(6...10))
            #expect(targets.count == 3)
        }
    }

    @Test func statsCountTheGETsOfEachRoute() async throws {
        try await SampleServer.with { server async throws in
            _ = try await server.send("GET", "/sync/accounts")
            _ = try await Self.allPages(server, "/sync/accounts/1/events?per_page=7")
            _ = try await server.send("GET", "/sync/accounts/2/events?since=bad")
            _ = try await server.send("GET", "/sync/accounts/3/notes")
            _ = try await server.send("POST", "/sync/_mutate?updates=1")
            let stats = try await server.json("GET", "/sync/_stats")
            #expect(stats["requests"]?["/sync/accounts"]?.int == 1)
            #expect(stats["requests"]?["/sync/accounts/:accountID/events"]?.int == 4)
            #expect(stats["requests"]?["/sync/accounts/:accountID/notes"]?.int == 1)
            #expect(stats["clock"]?.stringValue == "2026-01-01T01:00:00Z")
            _ = try await server.send("POST", "/sync/_reset")
            let cleared = try await server.json("GET", "/sync/_stats")
            #expect(cleared["requests"]?["/sync/accounts/:accountID/events"]?.int == 0)
            #expect(cleared["clock"]?.stringValue == "2026-01-01T00:00:00Z")
        }
    }

    @Test func aHundredThousandEvents() async throws {
        try await SampleServer.with(["--sync-accounts", "100", "--sync-events", "1000"]) { server async throws in
            #expect(Self.ids(try await server.json("GET", "/sync/accounts")) == Array(1...100))
            // 100,000 events spread over December: 26 s apart.
            let last = try await server.json("GET", "/sync/accounts/100/events?per_page=1000")
            #expect(Self.ids(last) == Array(99_001...100_000))
            #expect(last[999]?["updated_at"]?.stringValue == Self.time(26 * 100_000))
            let window = try await server.json(
                "GET", "/sync/accounts/57/events?since=\(Self.time(26 * 56_500))&until=\(Self.time(26 * 56_600))&per_page=1000"
            )
            #expect(Self.ids(window) == Array(56_500..<56_600))
            let (ids, targets) = try await Self.allPages(server, "/sync/accounts/57/events?updated_after=\(Self.time(26 * 56_100))&per_page=300")
            #expect(ids == Array(56_101...57_000))
            #expect(targets.count == 3)
            let mutation = try await server.json("POST", "/sync/_mutate?updates=50&inserts=200&deletes=50&seed=3")
            #expect(mutation["inserted"]?.elements.compactMap(\.int) == Array(100_001...100_200))
            var changed = 0
            for account in [1, 50, 100] {
                changed += try await server.json("GET", "/sync/accounts/\(account)/events?since=2026-01-01T00:00:00Z").count
            }
            #expect(changed >= 6)   // two inserted events in each of them, and any of the 50 updates
        }
    }
}

extension Array where Element: Comparable {
    var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0 <= $1 } }
}

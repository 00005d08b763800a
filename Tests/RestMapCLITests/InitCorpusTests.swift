import Foundation
import Testing

/// `restmap init` on response shapes of well-known public APIs (written in their public shapes,
/// `Tests/RestMapAuthoringTests/Fixtures/init-corpus/`), through the built binary: every draft
/// validates clean, maps its sample with no failed record and no unmapped key, and holds what a
/// person would write for that shape (key path, keyedBy, pagination, entity names, types).
@Suite("restmap init on public API shapes")
struct InitCorpusTests {
    /// One sample of the corpus and what its draft must (and must not) say.
    struct Shape: CustomStringConvertible, Sendable {
        var file: String
        var path: String
        /// Root records the draft maps from the sample (one `restmap map --format ndjson` line each).
        var roots: Int
        var headers: [String] = []
        var contains: [String]
        var absent: [String] = []
        var description: String { file }
    }

    static let corpus = "Tests/RestMapAuthoringTests/Fixtures/init-corpus"

    static let shapes: [Shape] = [
        Shape(file: "stripe-customers.json", path: "/v1/customers", roots: 3, contains: [
            "keyPath: data, entity: Customer }",
            #"pagination: { kind: cursor, cursor: "data.@last.id", query: { starting_after: ":cursor" } }"#,
            "metadata: { entity: Metadata }",
            "orderID: { from: order_id, type: string }",
            "created: { transform: dates.unix, type: date }",
            "preferredLocales: { from: preferred_locales, type: [string] }",
        ]),
        Shape(file: "github-search-repositories.json", path: "/search/repositories", roots: 2,
              headers: [#"Link: <https://api.github.com/search/repositories?q=tetris&page=2>; rel="next""#], contains: [
            "keyPath: items, entity: Repository }  # guessed: 'items' wraps the records; not mapped: total_count, incomplete_results",
            "pagination: { kind: link }",
            "owner: { entity: Owner }",
            "score: { type: decimal }",
            "topics: { type: [string] }",
        ]),
        Shape(file: "github-issues.json", path: "/repos/:owner/:repo/issues", roots: 2,
              headers: [#"Link: <https://api.github.com/repositories/1300192/issues?page=2>; rel="next", <https://api.github.com/repositories/1300192/issues?page=5>; rel="last""#],
              contains: [
            "- { method: GET, path: /repos/:owner/:repo/issues, entity: Issue }",
            "pagination: { kind: link }",
            "labels: { entity: Label, many: true }",
            "assignees: { entity: User, many: true }",
            "pullRequest: { from: pull_request, entity: PullRequest }  # absent in some samples",
        ]),
        Shape(file: "jsonapi-articles.json", path: "/articles", roots: 5, contains: [
            "keyPath: data, entity: Article }",
            "keyPath: included, entity: Included }",
            "pagination: { kind: link, next: links.next }",
            "  Article:\n    identifiedBy: id\n",
        ]),
        Shape(file: "hal-orders.json", path: "/orders", roots: 2, contains: [
            "keyPath: _embedded.ea:order, entity: EaOrder }",
            "pagination: { kind: link, next: _links.next.href }",
            "total: { type: decimal }",
            "not mapped: _links, currentlyProcessing, shippedToday",
        ]),
        Shape(file: "firebase-messages.json", path: "/messages.json", roots: 3, contains: [
            "- { method: GET, path: /messages.json, keyedBy: id, entity: Message }",
            "    # 'id' is filled from the object keys (keyedBy)\n    attributes:\n      id: { type: string }",
            "timestamp: { transform: { dates.unix: { unit: milliseconds } }, type: date }",
        ], absent: ["NyQ4k7aBcDeFgHiJkLm:", "nyQ4k7aBcDeFgHiJkLm", "relationships:"]),
        Shape(file: "firebase-room.json", path: "/rooms/:room.json", roots: 1, contains: [
            "messages: { entity: Message, many: true, keyedBy: id }",
            "  Room:\n    identifiedBy: id\n",
            "likes: { type: integer }",
        ], absent: ["NyQ4k7aBcDeFgHiJkLm:", "nyQ4k7aBcDeFgHiJkLm"]),
        Shape(file: "catalog-numeric-keys.json", path: "/catalog", roots: 3, contains: [
            "keyPath: products, keyedBy: id, entity: Product }",
            "price: { type: decimal }  # guessed: decimal numbers written as text",
            "discontinued: { type: boolean }  # absent in some samples",
        ], absent: ["E1001", "pagination:"]),
        Shape(file: "devices-uuid-keys.json", path: "/accounts/:id", roots: 1, contains: [
            "devices: { entity: Device, many: true, keyedBy: id }",
            "lastSeen: { from: last_seen, type: date }",
            "  Account:\n    identifiedBy: id\n",
        ], absent: ["E8c1f6f2e", "n8c1f6f2e"]),
        Shape(file: "leaderboard-usernames.json", path: "/leaderboard", roots: 1, contains: [
            "players: { entity: Player, many: true, keyedBy: key }  # guessed: each value repeats its key ('ada')",
            "points: { type: integer }",
            "- { method: GET, path: /leaderboard, entity: Leaderboard }",
        ], absent: ["  Ada:", "  Grace:"]),
        Shape(file: "orders-billing-shipping.json", path: "/orders", roots: 2, contains: [
            "billing: { entity: Billing }",
            "shipping: { entity: Billing }",
            "  Billing:  # guessed: one shape, also found as Shipping",
        ], absent: ["keyedBy"]),
        Shape(file: "slack-users-list.json", path: "/api/users.list", roots: 2, contains: [
            "keyPath: members, entity: Member }  # guessed: 'members' holds records in an envelope; not mapped: ok, cache_ts, response_metadata",
            "pagination: { kind: cursor, cursor: response_metadata.next_cursor }",
            "profile: { entity: Profile }",
            "tzOffset: { from: tz_offset, type: integer }",
        ]),
        Shape(file: "shopify-products.json", path: "/admin/api/2024-01/products.json", roots: 2,
              headers: [#"Link: <https://shop.myshopify.com/admin/api/2024-01/products.json?limit=2&page_info=eyJsYXN0X2lkIjo5MjE3Mjg3MzZ9>; rel="next""#],
              contains: [
            "keyPath: products, entity: Product }",
            "pagination: { kind: link }",
            "price: { type: decimal }  # guessed: decimal numbers written as text",
            "compareAtPrice: { from: compare_at_price, type: decimal }",
            "variants: { entity: Variant, many: true }",
        ]),
        Shape(file: "twitter-v2-tweets.json", path: "/2/users/:id/tweets", roots: 3, contains: [
            "keyPath: data, entity: Tweet }",
            "keyPath: includes.users, entity: User }",
            #"pagination: { kind: cursor, cursor: meta.next_token, query: { next_token: ":cursor" } }"#,
            "authorID: { from: author_id, type: string }",
        ]),
        Shape(file: "geojson-earthquakes.json", path: "/features", roots: 2, contains: [
            "keyPath: features, entity: Feature }",
            "coordinates: { type: [decimal] }",
            "geometry: { entity: Geometry }",
            "time: { transform: { dates.unix: { unit: milliseconds } }, type: date }",
        ], absent: ["pagination:"]),
        Shape(file: "geojson-mixed-geometries.json", path: "/features", roots: 3, contains: [
            "keyPath: features, entity: Feature }",
            "coordinates: { type: any }  # a list of mixed values in the samples",
            "prop1: { type: any }",
        ]),
        Shape(file: "nested-orders.json", path: "/orders", roots: 2, contains: [
            "lines: { entity: Line, many: true }",
            "lat: { type: decimal }",
            "parent: { entity: Category }",
            "total: { type: decimal }",
        ]),
        Shape(file: "snowflake-ids.json", path: "/channels/:channel/messages", roots: 2, contains: [
            "id: { type: integer }",
            "idStr: { from: id_str, type: string }",
            "channelID: { from: channel_id, type: string }",
            "mentionIds: { from: mention_ids, type: [integer] }",
        ]),
        Shape(file: "reqres-users-page.json", path: "/api/users", roots: 2, contains: [
            "keyPath: data, entity: User }",
            "pagination: { kind: page, currentPage: page, perPage: per_page, pageCount: total_pages, objectCount: total }",
            "avatar: { type: url }",
        ]),
        Shape(file: "spotify-saved-tracks.json", path: "/v1/me/tracks", roots: 2, contains: [
            "keyPath: items, entity: Track }",
            "pagination: { kind: link, next: next }",
            "track: { entity: Track2 }",
            "durationMs: { from: duration_ms, type: integer }",
        ]),
        Shape(file: "drf-accounts.json", path: "/accounts/", roots: 2, contains: [
            "keyPath: results, entity: Account }",
            "pagination: { kind: link, next: next }",
            "balance: { type: decimal }",
        ]),
        Shape(file: "products-cursor-envelope.json", path: "/products", roots: 3, contains: [
            "- { method: GET, path: /products, keyPath: products, entity: Product }",
            "pagination: { kind: cursor, cursor: cursor }",
            "price: { type: decimal }",
        ], absent: ["relationships:", "count:", "Product2"]),
        Shape(file: "jira-search.json", path: "/rest/api/3/search", roots: 2, contains: [
            "keyPath: issues, entity: Issue }",
            "pagination: { kind: offset, perPage: maxResults, objectCount: total }",
            "fields: { entity: Field }",
        ]),
        Shape(file: "youtube-search.json", path: "/youtube/v3/search", roots: 2, contains: [
            "keyPath: items, entity: Search }",
            #"pagination: { kind: cursor, cursor: nextPageToken, query: { pageToken: ":cursor" } }"#,
            "medium: { entity: Default }",
        ], absent: ["keyedBy"]),
        Shape(file: "openweather-forecast.json", path: "/data/2.5/forecast", roots: 2, contains: [
            "keyPath: list, entity: Forecast }  # guessed: 'list' wraps the records; not mapped: cod, message, cnt, city",
            "weather: { entity: Weather, many: true }",
            "pop: { type: decimal }",
        ]),
    ]

    @Test("The corpus holds at least 20 shapes, each with its expectations, and every fixture is listed")
    func corpusIsComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: CLI.repository.appendingPathComponent(Self.corpus).path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 20)
        #expect(files == Self.shapes.map(\.file).sorted())
        #expect(Self.shapes.allSatisfy { $0.contains.count >= 3 })
    }

    @Test("init drafts a schema that validates clean and maps its sample with no failed record and no unmapped key",
          arguments: shapes)
    func promise(_ shape: Shape) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-init-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = CLI.repository.appendingPathComponent("\(Self.corpus)/\(shape.file)").path
        let concretePath = shape.path.replacing(/:[A-Za-z0-9_]+/, with: "sample")

        let drafted = try CLI.run(["init", "--path", shape.path] + shape.headers.flatMap { ["--header", $0] } + [sample])
        #expect(drafted.status == 0, "\(drafted.errors)\n\(drafted.output)")
        #expect(drafted.errors.isEmpty, "\(drafted.errors)")
        for expected in shape.contains {
            #expect(drafted.output.contains(expected), "missing \(expected)\n\(drafted.output)")
        }
        for unexpected in shape.absent {
            #expect(!drafted.output.contains(unexpected), "unexpected \(unexpected)\n\(drafted.output)")
        }
        let schema = directory.appendingPathComponent("draft.yaml")
        try drafted.output.write(to: schema, atomically: true, encoding: .utf8)

        let validated = try CLI.run(["validate", schema.path, "--sample", sample, "--path", concretePath])
        #expect(validated.status == 0, "\(validated.output)\(validated.errors)")
        #expect(validated.output.isEmpty, "\(validated.output)")
        #expect(validated.errors == "0 errors, 0 warnings in 1 file\n", "\(validated.errors)")

        let mapped = try CLI.run(["map", "--schema", schema.path, "--path", concretePath, "--format", "ndjson", sample])
        #expect(mapped.status == 0, "\(mapped.errors)")
        #expect(mapped.errors.isEmpty, "\(mapped.errors)")
        #expect(mapped.output.split(separator: "\n").count == shape.roots, "\(mapped.output)")
        #expect(mapped.output.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"$entity":""#) })
    }

    @Test("--json-schema writes the yaml-language-server line, which is left out without it; a --header without ':' is a usage error")
    func editorHeaderAndUsage() throws {
        let sample = CLI.repository.appendingPathComponent("\(Self.corpus)/drf-accounts.json").path
        let plain = try CLI.run(["init", "--path", "/accounts/", sample])
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(plain.output.hasPrefix("# Drafted by restmap init from 1 sample"))
        #expect(!plain.output.contains("yaml-language-server"))
        let pointed = try CLI.run(["init", "--path", "/accounts/", "--json-schema", "../Schemas/restmap.schema.json", sample])
        #expect(pointed.status == 0, "\(pointed.errors)")
        #expect(pointed.output.hasPrefix("# yaml-language-server: $schema=../Schemas/restmap.schema.json\n# Drafted by restmap init"))
        let badHeader = try CLI.run(["init", "--path", "/accounts/", "--header", "Link", sample])
        #expect(badHeader.status == 2)
        #expect(badHeader.errors.contains("--header takes name:value, found 'Link'"), "\(badHeader.errors)")
        #expect(badHeader.output.isEmpty)
    }
}

import Foundation
import RestMap
@testable import RestMapAuthoring
import Testing

/// `restmap init` on shapes of real APIs: objects keyed by ids, envelopes, pagination guesses,
/// decimal strings and the editor header.
@Suite("restmap init: keyed collections, envelopes, pagination")
struct DraftShapeTests {
    static func draft(_ json: String, path: String = "/items", headers: [String: String] = [:],
                      jsonSchema: String? = nil) throws -> SchemaDraft {
        let inference = SchemaInference(options: .init(path: path, headers: headers, jsonSchema: jsonSchema))
        try inference.add(sample: Array(json.utf8), file: "sample.json")
        return inference.draft()
    }

    @Test("A body keyed by Firebase push ids is one keyed collection, not an entity per key")
    func firebaseBody() throws {
        let draft = try Self.draft(#"{"-NyQ4k7aBcDeFgHiJkLm": {"text": "a", "n": 1}, "-NyQ4k8xYz0123456789": {"text": "b", "n": 2}}"#,
                                   path: "/messages.json")
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)\n\(draft.yaml)")
        #expect(draft.yaml.contains("- { method: GET, path: /messages.json, keyedBy: id, entity: Message }  # guessed: the keys look like identifiers ('-NyQ4k7aBcDeFgHiJkLm'): each key becomes 'id'"), "\(draft.yaml)")
        #expect(draft.yaml.contains("    # 'id' is filled from the object keys (keyedBy)\n    attributes:\n      id: { type: string }\n      text: { type: string }"))
        #expect(!draft.yaml.contains("NyQ4k"+"7aBcDeFgHiJkLm:"))
        #expect(!draft.yaml.contains("relationships:"))
    }

    @Test("Nested objects keyed by numbers, UUIDs or repeated names become keyedBy relationships")
    func nestedKeyed() throws {
        let numeric = try Self.draft(#"[{"id": 1, "items": {"17": {"sku": "a", "qty": 1}, "42": {"sku": "b", "qty": 2}}}]"#, path: "/carts")
        #expect(numeric.diagnostics.isEmpty, "\(numeric.diagnostics)")
        #expect(numeric.yaml.contains("items: { entity: Item, many: true, keyedBy: id }  # guessed: the keys look like identifiers ('17'): each key becomes 'id'"), "\(numeric.yaml)")

        let uuids = try Self.draft(#"{"id": "a", "devices": {"8c1f6f2e-3b1d-4a39-9b8e-2f0f5a7d1c11": {"id": 3, "os": "ios"}}}"#, path: "/accounts/:id")
        #expect(uuids.diagnostics.isEmpty, "\(uuids.diagnostics)")
        // The values have an `id` of their own: the keys fill `key`.
        #expect(uuids.yaml.contains("devices: { entity: Device, many: true, keyedBy: key }"), "\(uuids.yaml)")

        let names = try Self.draft(#"{"season": 1, "players": {"ada": {"login": "ada", "points": 3}, "bob": {"login": "bob", "points": 1}}}"#, path: "/board")
        #expect(names.diagnostics.isEmpty, "\(names.diagnostics)")
        #expect(names.yaml.contains("players: { entity: Player, many: true, keyedBy: key }  # guessed: each value repeats its key ('ada')"), "\(names.yaml)")
    }

    @Test("Two or three keys that are field names, holding objects of one shape, stay relationships")
    func fieldNamesStayRelationships() throws {
        let draft = try Self.draft(#"""
            [{"id": 1, "billing": {"city": "a", "zip": "1"}, "shipping": {"city": "b", "zip": "2"},
              "thumbnails": {"default": {"url": "https://x.example/a", "width": 1}, "medium": {"url": "https://x.example/b", "width": 2}, "high": {"url": "https://x.example/c", "width": 3}}}]
            """#, path: "/orders")
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("billing: { entity: Billing }"))
        #expect(draft.yaml.contains("shipping: { entity: Billing }"))
        #expect(draft.yaml.contains("medium: { entity: Default }"), "\(draft.yaml)")
        #expect(!draft.yaml.contains("keyedBy"))
    }

    @Test("Keys that look like identifiers, and keys that look like field names")
    func keyShapes() {
        for key in ["17", "-NyQ4k7aBcDeFgHiJkLm", "8c1f6f2e-3b1d-4a39-9b8e-2f0f5a7d1c11", "507f1f77bcf86cd799439011", "U024BE7LH", "cus_NffrFeUfNV2Hib"] {
            #expect(RecordShapes.isIdentifierLike(key), "\(key)")
        }
        for key in ["billing", "line2", "address_1", "user42", "shipping", "avatarURL"] {
            #expect(!RecordShapes.isIdentifierLike(key), "\(key)")
        }
        for key in ["billing", "first_name", "current-event", "createdAt", "line2"] {
            #expect(RecordShapes.isPlausibleFieldName(key), "\(key)")
        }
        for key in ["Ada Lovelace", "de-DE", "US", "john.doe", "x@y"] {
            #expect(!RecordShapes.isPlausibleFieldName(key), "\(key)")
        }
    }

    @Test("An envelope whose records' key names the path's entity: the records are the keyPath, the envelope no entity")
    func envelopeNamedLikeItsRecords() throws {
        let draft = try Self.draft(#"{"products": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], "cursor": "abc", "count": 120}"#, path: "/products")
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("- { method: GET, path: /products, keyPath: products, entity: Product }  # guessed: 'products' holds records in an envelope; not mapped: cursor, count"), "\(draft.yaml)")
        #expect(draft.yaml.contains("pagination: { kind: cursor, cursor: cursor }  # guessed: 'cursor' holds the next cursor, sent as 'cursor'"))
        #expect(!draft.yaml.contains("relationships:"))
        #expect(!draft.yaml.contains("count:"))
        #expect(!draft.yaml.contains("Product2"))
    }

    @Test("A record with a list of children stays a record; a child named like its parent but shaped otherwise is another entity")
    func recordWithChildren() throws {
        let record = try Self.draft(#"{"id": 3, "name": "Shop", "products": [{"sku": "a", "price": 1}]}"#, path: "/products")
        #expect(record.diagnostics.isEmpty, "\(record.diagnostics)")
        #expect(record.yaml.contains("- { method: GET, path: /products, entity: Product }"), "\(record.yaml)")
        #expect(record.yaml.contains("products: { entity: Product2, many: true }"), "\(record.yaml)")

        let recursive = try Self.draft(#"[{"id": 1, "name": "a", "categories": [{"id": 2, "name": "b", "categories": []}]}]"#, path: "/categories")
        #expect(recursive.diagnostics.isEmpty, "\(recursive.diagnostics)")
        #expect(recursive.yaml.contains("categories: { entity: Category, many: true }"), "\(recursive.yaml)")
        #expect(!recursive.yaml.contains("Category2"))
    }

    @Test("Paging fields become a pagination guess, one per kind")
    func paginationKinds() throws {
        let cases: [(body: String, headers: [String: String], expected: String)] = [
            (#"[{"id": 1}]"#, ["Link": #"<https://api.example.com/items?page=2>; rel="next""#],
             #"pagination: { kind: link }  # guessed: the Link header has a rel="next" URL"#),
            (#"[{"id": 1}]"#, ["X-Next-Cursor": "abc"],
             "pagination: { kind: cursor, cursorHeader: X-Next-Cursor }  # guessed: the 'X-Next-Cursor' header carries the next cursor"),
            (#"{"count": 3, "next": "https://api.example.org/items/?page=2", "previous": null, "results": [{"id": 1}]}"#, [:],
             "pagination: { kind: link, next: next }  # guessed: 'next' holds the next page's URL"),
            (#"{"_links": {"next": {"href": "/items?page=2"}}, "_embedded": {"items": [{"id": 1}]}}"#, [:],
             "pagination: { kind: link, next: _links.next.href }"),
            (#"{"data": [{"id": "1"}], "meta": {"result_count": 1, "next_token": "b26v89c19zqg8o3f"}}"#, [:],
             #"pagination: { kind: cursor, cursor: meta.next_token, query: { next_token: ":cursor" } }"#),
            (#"{"items": [{"id": "1"}], "nextPageToken": "CAUQAA"}"#, [:],
             #"pagination: { kind: cursor, cursor: nextPageToken, query: { pageToken: ":cursor" } }"#),
            (#"{"object": "list", "has_more": true, "data": [{"id": "ch_1"}]}"#, [:],
             #"pagination: { kind: cursor, cursor: "data.@last.id", query: { starting_after: ":cursor" } }"#),
            (#"{"startAt": 0, "maxResults": 50, "total": 2, "issues": [{"id": "1"}]}"#, [:],
             "pagination: { kind: offset, perPage: maxResults, objectCount: total }"),
            (#"{"page": 2, "per_page": 6, "total": 12, "total_pages": 2, "data": [{"id": 7}]}"#, [:],
             "pagination: { kind: page, currentPage: page, perPage: per_page, pageCount: total_pages, objectCount: total }"),
        ]
        for (body, headers, expected) in cases {
            let draft = try Self.draft(body, headers: headers)
            #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)\n\(draft.yaml)")
            #expect(draft.yaml.contains(expected), "\(draft.yaml)")
        }
        let none = try Self.draft(#"{"type": "FeatureCollection", "features": [{"id": "a", "type": "Feature"}]}"#)
        #expect(!none.yaml.contains("pagination:"))
    }

    @Test("Decimal strings are decimal; integer strings and versions stay strings")
    func decimalStrings() throws {
        let draft = try Self.draft(#"[{"price": "3.50", "total": "12", "order_id": "6735", "api_version": "2.1"}, {"price": "10", "total": "7.25", "order_id": "6736", "api_version": "2.2"}]"#)
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("price: { type: decimal }  # guessed: decimal numbers written as text"))
        #expect(draft.yaml.contains("total: { type: decimal }"))
        #expect(draft.yaml.contains("orderID: { from: order_id, type: string }"))
        #expect(draft.yaml.contains("apiVersion: { from: api_version, type: string }"))
    }

    @Test("The yaml-language-server line is written only where the JSON Schema is given")
    func editorHeader() throws {
        let plain = try Self.draft(#"[{"id": 1}]"#)
        #expect(plain.yaml.hasPrefix("# Drafted by restmap init from 1 sample"))
        #expect(!plain.yaml.contains("yaml-language-server"))
        let pointed = try Self.draft(#"[{"id": 1}]"#, jsonSchema: "../Schemas/restmap.schema.json")
        #expect(pointed.yaml.hasPrefix("# yaml-language-server: $schema=../Schemas/restmap.schema.json\n# Drafted by restmap init"))
        #expect(pointed.diagnostics.isEmpty)
    }

    @Test("A Content-Type: text/csv header reads a sample of any file name as CSV, and the draft's check uses it")
    func csvByHeader() throws {
        let inference = SchemaInference(options: .init(path: "/export", headers: ["Content-Type": "text/csv; charset=utf-8"]))
        try inference.add(sample: Array("id,price\n1,3.50\n2,4\n".utf8), file: "export.txt")
        let draft = inference.draft()
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)\n\(draft.yaml)")
        #expect(draft.yaml.contains("plugins: [csv]"))
        #expect(draft.yaml.contains("price: { type: decimal }"), "\(draft.yaml)")
    }

    @Test("A wrapper key holding one object next to envelope keys maps that object (a JSON:API single resource)")
    func singleResource() throws {
        let draft = try Self.draft(#"{"data": {"type": "articles", "id": "1", "attributes": {"title": "a"}}, "links": {"self": "http://example.com/articles/1"}}"#,
                                   path: "/articles/:id")
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)\n\(draft.yaml)")
        #expect(draft.yaml.contains("- { method: GET, path: /articles/:id, keyPath: data, entity: Article }  # guessed: 'data' wraps the records; not mapped: links"), "\(draft.yaml)")
        #expect(!draft.yaml.contains("  Data:"))
    }
}

import Foundation
import RestMap
import RestMapPluginLoader
import RestMapPlugins
import RestMapSchema
@testable import RestMapAuthoring
import Testing

@Suite("restmap init: schema inference")
struct SchemaInferenceTests {
    static func draft(_ json: String, path: String = "/items", name: String? = nil) throws -> SchemaDraft {
        let inference = SchemaInference(options: .init(name: name, path: path))
        try inference.add(sample: Array(json.utf8), file: "sample.json")
        return inference.draft()
    }

    @Test("Every sample under Samples/ drafts a schema that validates clean and maps it without failures or unmapped keys",
          arguments: Repository.samples)
    func everySample(_ sample: Repository.Sample) throws {
        let bytes = try #require(FileManager.default.contents(atPath: Repository.path(sample.body)))
        let inference = SchemaInference(options: .init(name: sample.story, path: sample.path, method: sample.method))
        try inference.add(sample: Array(bytes), file: Repository.path(sample.body))
        let draft = inference.draft()
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics.map(\.description))\n\(draft.yaml)")
        // Independently of the draft's own check: the schema loads and maps the sample with records.
        let loaded = Schema.load(bytes: Array(draft.yaml.utf8), file: "draft.yaml",
                                 options: SchemaLoadOptions(pluginProvider: PluginSearchPath(schemaDirectory: nil)))
        let schema = try #require(loaded.schema, "\(loaded.diagnostics)")
        let mapper = try Mapper(schema: schema, plugins: loaded.plugins)
        let headers = BodyMediaType.implied(byExtensionOf: sample.body).map { ["Content-Type": $0] } ?? [:]
        let report = mapper.dryRun(Response(method: sample.method, path: SchemaInference.concretePath(sample.path), headers: headers, body: Array(bytes)))
        #expect(report.failure == nil)
        #expect(report.failedRecords.isEmpty)
        #expect(report.unmappedKeys.isEmpty)
        #expect(report.result?.records.isEmpty == false)
    }

    @Test("Types are inferred across samples: integer, decimal, boolean, dates, URLs, nullable and absent keys")
    func types() throws {
        let inference = SchemaInference(options: .init(path: "/users/:login/repos"))
        try inference.add(sample: Array(#"[{"id": 1, "full_name": "a/b", "price": 3, "private": false, "pushed_at": "2013-03-13T18:10:21Z", "html_url": "https://github.com/a/b", "homepage": null, "big": 69726278940360707, "created_at": 1700000000, "expires_at": 1700000000123}]"#.utf8), file: "one.json")
        try inference.add(sample: Array(#"[{"id": 2, "full_name": "c/d", "price": 4.25, "private": true, "pushed_at": "2014-01-01T00:00:00.5+02:00", "html_url": "https://github.com/c/d", "homepage": "x", "big": 1, "expires_at": 1800000000000}]"#.utf8), file: "two.json")
        let draft = inference.draft()
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        let yaml = draft.yaml
        #expect(yaml.contains("plugins: [dates]"))
        #expect(yaml.contains("  Repo:\n    identifiedBy: id\n"))
        #expect(yaml.contains("id: { type: integer }"))
        #expect(yaml.contains("fullName: { from: full_name, type: string }"))
        #expect(yaml.contains("price: { type: decimal }  # integers and fractions in the samples: decimal keeps both exact"))
        #expect(yaml.contains("isPrivate") == false && yaml.contains("private: { type: boolean }"))
        #expect(yaml.contains("pushedAt: { from: pushed_at, type: date }  # guessed: ISO 8601 dates in the samples"))
        #expect(yaml.contains("htmlURL: { from: html_url, type: url }"))
        #expect(yaml.contains("homepage: { type: string }  # null in some samples"))
        #expect(yaml.contains("big: { type: integer }"))
        #expect(yaml.contains("createdAt: { from: created_at, transform: dates.unix, type: date }  # guessed: Unix timestamps in seconds under a date-like key; absent in some samples"))
        #expect(yaml.contains("expiresAt: { from: expires_at, transform: { dates.unix: { unit: milliseconds } }, type: date }  # guessed: Unix timestamps in milliseconds"))
        #expect(yaml.contains("- { method: GET, path: /users/:login/repos, entity: Repo }"))
    }

    @Test("Nested objects become related entities; the same shape in two places becomes one entity")
    func nestedAndUnified() throws {
        let draft = try Self.draft(#"""
            [{"id": 1, "owner": {"login": "a", "id": 7}, "organization": {"login": "b", "id": 8},
              "tasks": [{"id": 1, "title": "x"}, {"id": 2, "title": "y"}]}]
            """#, path: "/repos")
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("owner: { entity: Owner }"))
        #expect(draft.yaml.contains("organization: { entity: Owner }"))
        #expect(draft.yaml.contains("  Owner:  # guessed: one shape, also found as Organization"))
        #expect(draft.yaml.contains("tasks: { entity: Task, many: true }"))
        #expect(!draft.yaml.contains("  Organization:"))
    }

    @Test("Wrapper objects are detected: {\"data\": [...]} maps under keyPath data, named after the path")
    func wrapper() throws {
        let draft = try Self.draft(#"{"data": [{"user_id": 5, "e-mail": "a@b.c"}, {"user_id": 6, "e-mail": "d@e.f"}], "meta": {"page": 1}}"#, path: "/users")
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("- { method: GET, path: /users, keyPath: data, entity: User }  # guessed: 'data' wraps the records; not mapped: meta"))
        #expect(draft.yaml.contains("identifiedBy: userID  # guessed: 'user_id' is unique across the samples"))
        #expect(draft.yaml.contains("eMail: { from: e-mail, type: string }"))
    }

    @Test("An identifier whose repeats are partial views of one object is proposed: they merge")
    func partialViews() throws {
        let draft = try Self.draft(#"[{"user_id": 3, "friends": [{"user_id": 1, "name": "Mo"}, {"user_id": 2}]}, {"user_id": 4, "friends": [{"user_id": 1}]}]"#)
        #expect(draft.diagnostics.isEmpty)
        #expect(draft.yaml.contains("  Friend:\n    identifiedBy: userID  # guessed: equal 'user_id' values belong to partial views of one object (they merge)"))
    }

    @Test("An identifier that repeats for different objects is not proposed")
    func noIdentification() throws {
        let draft = try Self.draft(#"[{"code": 1, "name": "a"}, {"code": 1, "name": "b"}]"#)
        #expect(draft.diagnostics.isEmpty)
        #expect(!draft.yaml.contains("    identifiedBy:"))
        #expect(draft.yaml.contains("# no identifiedBy: no attribute is unique across the samples, so records never merge"))
    }

    @Test("A CSV sample is decoded by the csv plugin; numbers with thousands separators read through csv.number")
    func csv() throws {
        let inference = SchemaInference(options: .init(path: "/top250.csv"))
        try inference.add(sample: Array("Rank,Rating,Title,Votes\n1,9.2,A (1972),\"1,000\"\n2,9,\"B, C\",999\n".utf8), file: "top.csv")
        let draft = inference.draft()
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("plugins: [csv]  # csv decodes text/csv bodies"))
        #expect(draft.yaml.contains("rank: { from: Rank, type: integer }"))
        #expect(draft.yaml.contains("rating: { from: Rating, type: decimal }"))
        #expect(draft.yaml.contains("votes: { from: Votes, transform: csv.number, type: integer }  # guessed: numbers with thousands separators"))
    }

    @Test("A type that fails on a sample falls back to string, and the draft says so")
    func fallback() throws {
        // An ISO-looking date that is not a calendar date: the dates plugin refuses it.
        let draft = try Self.draft(#"[{"id": 1, "due_on": "2024-02-31"}, {"id": 2, "due_on": "2024-13-45"}]"#)
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)")
        #expect(draft.yaml.contains("dueOn: { from: due_on, type: string }  # date did not map every sample; kept as string"), "\(draft.yaml)")
        #expect(!draft.yaml.contains("plugins:"))
    }

    @Test("Keys that YAML would read as booleans or null, or that need quoting, still make a clean draft")
    func awkwardKeys() throws {
        let draft = try Self.draft(##"[{"true": {"a": 1}, "null": 2, "a: b": "x", "#c": "y", "q\"t": "z", "LUPO.API.Log": "w", "@id": "v"}]"##)
        #expect(draft.diagnostics.isEmpty, "\(draft.diagnostics)\n\(draft.yaml)")
        #expect(draft.yaml.contains("trueValue: { from: \"true\", entity: TrueRecord }"))
        #expect(draft.yaml.contains("nullValue: { from: \"null\", type: integer }"))
        #expect(draft.yaml.contains("lupoAPILog: { from: [\"LUPO.API.Log\"], type: string }"))
        #expect(draft.yaml.contains("qT: { from: \"q\\\"t\", type: string }"))
        #expect(draft.yaml.contains("id: { from: [\"@id\"], type: string }"))
    }

    @Test("An empty key cannot be read: the draft says so and the check reports it unmapped")
    func emptyKey() throws {
        let draft = try Self.draft(#"[{"id": 1, "": 2}]"#)
        #expect(draft.yaml.contains("# the samples have an empty key \"\", which no key path can read: it stays unmapped"))
        #expect(draft.diagnostics.map(\.message) == ["key '[].' is not mapped by the schema"])
    }

    @Test("Names: camelCase attributes with acronyms, singular entity names")
    func naming() {
        #expect(Naming.attributeName("avatar_url") == "avatarURL")
        #expect(Naming.attributeName("assigned_user_id") == "assignedUserID")
        #expect(Naming.attributeName("current-event") == "currentEvent")
        #expect(Naming.attributeName("Title") == "title")
        #expect(Naming.attributeName("$oid") == "oid")
        #expect(Naming.entityName("categories") == "Category")
        #expect(Naming.entityName("statuses") == "Status")
        #expect(Naming.entityName("people") == "Person")
        #expect(Naming.entityName("current-event") == "CurrentEvent")
        #expect(SchemaInference.entityName(fromPath: "/users/:login/repos") == "Repo")
        #expect(SchemaInference.entityName(fromPath: "/") == "Item")
    }

    @Test("A sample with no records is refused with the reason")
    func refused() {
        let inference = SchemaInference(options: .init())
        #expect(throws: SchemaInference.InferenceError.self) { try inference.add(sample: Array("[1, 2]".utf8), file: "numbers.json") }
        #expect(throws: SchemaInference.InferenceError.self) { try inference.add(sample: Array("{".utf8), file: "broken.json") }
    }
}

// Maps GitHub's starred repositories with Schemas/github.yaml, keeps them in a SQLite store and
// reads them back, through the public API of every RestMap product.
//
//   swift run --package-path Samples/Embedding Embedding REPOSITORY_ROOT [--restmap-directory DIR] [--base-url URL]
//
// With --restmap-directory (the folder of a built or installed `restmap`, whose first-party plugins
// are trusted) the schema's plugins are also loaded from disk (librestmap-dates.so);
// with --base-url (the sample server: restmap-sample-server --port 8080) the starred
// repositories are also fetched over HTTP, page by page.
import Foundation
import HTTPTypes
import RestMap
import RestMapClient
import RestMapCSV
import RestMapDates
import RestMapIDs
import RestMapJSON
import RestMapPluginKit
import RestMapPluginLoader
import RestMapSchema
import RestMapStore
import RestMapSync

/// A plugin written with RestMapPluginKit and linked in process: `shout.upper`.
enum ShoutPlugin: RestMapPlugin {
    static let name = "shout"
    static let version = "1.0.0"
    static var transformers: [TransformerDefinition] {
        [TransformerDefinition(name: "upper", summary: "text in capitals", make: { _ in Upper() })]
    }

    struct Upper: ValueTransformer {
        func transform(_ value: Value) throws -> Value {
            guard case .string(let text) = value else { return value }
            return .string(text.uppercased())
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    return arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

func run() async throws {
    guard CommandLine.arguments.count > 1 else { throw Failure(description: "usage: Embedding REPOSITORY_ROOT [--restmap-directory DIR] [--base-url URL]") }
    let root = URL(fileURLWithPath: CommandLine.arguments[1])
    let schemaPath = root.appendingPathComponent("Schemas/github.yaml").path
    let body = Array(try Data(contentsOf: root.appendingPathComponent("Samples/github/starred.json")))

    // RestMapJSON: the body as a document.
    let document = try JSONDocument(bytes: body)
    print("body: \(document.root.count) elements")

    // RestMap + RestMapPlugins: plugins linked in process, then the one way to load a schema.
    var plugins = PluginRegistry()
    try plugins.register(DatesPlugin.self)
    try plugins.register(IDsPlugin.self)
    try plugins.register(CSVPlugin.self)
    try plugins.register(ShoutPlugin.self)
    let loaded = Schema.load(contentsOf: schemaPath, options: SchemaLoadOptions(plugins: plugins))
    for diagnostic in loaded.diagnostics { print(diagnostic) }
    let mapper = try loaded.mapper()
    let schema: RestMapSchema.Schema = mapper.schema
    print("schema \(schema.name ?? "?"): \(schema.entities.count) entities, plugins \(loaded.plugins.plugins.map(\.name).filter { !$0.isEmpty }.sorted())")

    let response = Response(path: "/users/octocat/starred", body: body)
    let result = try mapper.map(response)
    print("mapped \(result.records.count) records, \(result.errors.count) errors")
    guard let first = result.records.first else { throw Failure(description: "no record") }
    print("first: \(first.fullName.string ?? "") by \(first.owner.login.string ?? "")")
    print(String(decoding: RecordWriter.output(Array(result.records.prefix(1)), format: .ndjson), as: UTF8.self), terminator: "")

    // A schema in memory, with the in-process plugin.
    let inline = """
        restmap: 1
        plugins: [shout]
        entities:
          Word:
            attributes:
              text: { from: text, transform: [shout.upper] }
        responses:
          - { entity: Word }
        """
    let words = try Schema.load(bytes: Array(inline.utf8), file: "inline.yaml", options: SchemaLoadOptions(plugins: plugins))
        .mapper().map(Response(path: "/", body: Array(#"[{"text": "hello"}]"#.utf8)))
    print("shout: \(words.records.first?.text.string ?? "")")

    // RestMapPluginLoader: the same schema with its plugins loaded from disk.
    if let restmapDirectory = option("--restmap-directory") {
        let fromDisk = Schema.load(contentsOf: schemaPath, options: SchemaLoadOptions(
            pluginProvider: PluginSearchPath(schemaDirectory: nil, executableDirectory: restmapDirectory)))
        let mapped = try fromDisk.mapper().map(response)
        let library = fromDisk.plugins.plugins.first { $0.name == "dates" }?.path ?? "none"
        print("from disk: \(mapped.records.count) records, dates from \(URL(fileURLWithPath: library).lastPathComponent)")
    }

    // RestMapStore: keep the records, read them back.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-embedding-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try RecordStore(path: folder.appendingPathComponent("github.sqlite").path, mapper: mapper)
    let summary = try await store.save(result, of: response)
    print("store: \(summary)")
    let stored = try await store.records(StoreQuery(entity: "Repository", order: [("fullName", true)], limit: 2))
    print("stored: \(stored.map { $0.fullName.string ?? "" })")

    // RestMapClient: the same schema as a REST client.
    var configuration = ClientConfiguration(schema: schema)
    configuration.environment["GITHUB_TOKEN"] = configuration.environment["GITHUB_TOKEN"] ?? "sample-token"   // the sample server's
    configuration.baseURL = option("--base-url") ?? "http://127.0.0.1:9"
    configuration.headers[.accept] = "application/json"
    try await RestClient.with(mapper: mapper, configuration: configuration) { client in
        print("client: \(client.url(for: "/users/octocat/starred", query: ["per_page": "2"]))")
        // RestMapSync: the schema has no sync: section, so a sync has nothing to run and no state.
        let synchronizer = Synchronizer(client: client, store: store)
        var events = 0
        for try await _ in synchronizer.run() { events += 1 }
        print("sync: \(events) events, \(try await synchronizer.status().count) states")
        guard option("--base-url") != nil else { return }
        var fetched = 0
        for try await page in client.pages(route: "starred", parameters: ["login": "octocat"], query: ["per_page": "2"], maxPages: 5) {
            fetched += page.records.count
            if page.response.status != .ok { throw Failure(description: "status \(page.response.status)") }
            if let reason = page.stopReason { print("fetched \(fetched) records over HTTP, stopped: \(reason)") }
        }
    }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("Embedding: \(error)\n".utf8))
    exit(1)
}

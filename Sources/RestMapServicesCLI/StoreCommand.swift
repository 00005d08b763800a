import ArgumentParser
import Foundation
import RestMapAuthoring
import RestMap
import RestMapCLICore
import RestMapStore
import RestMapStorePostgres

/// `restmap store`: import responses into a store (a SQLite file or PostgreSQL), query it and search it.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: ServicesCommand.store.abstract,
        discussion: """
            Tables come from the schema (Docs/Store.md). --db is a SQLite file or a PostgreSQL URL \
            (postgres://user@host:port/database, the password from PGPASSWORD or ~/.pgpass; RESTMAP_DATABASE_URL \
            when --db is not given). Every subcommand ends with a summary line on standard error. \
            'import' creates the database when missing and migrates it; 'query' and 'search' only read: they refuse \
            a missing database and never change one.

            Examples:
              restmap store import --schema Schemas/mongohq.yaml --db mongohq.sqlite \\
                --path /databases/shop/collections Samples/mongohq/collections.json
              restmap store query --schema Schemas/mongohq.yaml --db mongohq.sqlite \\
                Collection --order name
              restmap store search --schema Schemas/mongohq.yaml --db mongohq.sqlite \\
                mov
            """,
        subcommands: [StoreImportCommand.self, StoreQueryCommand.self, StoreSearchCommand.self])
}

/// The options every store command shares: the schema, the database, plugins, rebuilding.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The schema file.")
    var schema: String

    @Option(name: .long, help: ArgumentHelp("The SQLite database file, or a postgres:// URL (import creates the store when missing; "
        + "query and search only read it). Default: $RESTMAP_DATABASE_URL.", valueName: "file-or-url"))
    var db: String?

    @Flag(name: .long, help: "Drop and rebuild the store when the schema changed it destructively (its records are lost).")
    var rebuild = false

    @OptionGroup var plugins: PluginOptions

    /// The mapper of the schema and the store opened with it for writing (created or migrated
    /// as needed); problems print and exit 1.
    func open() async throws -> RecordStore {
        let mapper = try plugins.mapper(for: schema)
        let database = try StoreDatabase.named(db)
        return try await StoreFailure.report { try await RecordStore.open(database, mapper: mapper, rebuild: rebuild) }
    }

    /// The store opened for reading only: a missing file or a store the schema would migrate is
    /// an error, and nothing is created or changed; problems print and exit 1.
    func openForReading() async throws -> RecordStore {
        if rebuild { throw ValidationError("--rebuild applies to 'store import': reading never changes a store") }
        let mapper = try plugins.mapper(for: schema)
        let database = try StoreDatabase.named(db)
        return try await StoreFailure.report { try await RecordStore.open(database, mapper: mapper, readOnly: true) }
    }
}

/// The database a command names with --db, or `RESTMAP_DATABASE_URL`.
enum StoreDatabase {
    static func named(_ option: String?) throws -> String {
        if let option { return option }
        if let url = ProcessEnvironment.value("RESTMAP_DATABASE_URL"), !url.isEmpty { return url }
        throw ValidationError("give --db FILE-OR-URL, or set RESTMAP_DATABASE_URL")
    }
}

/// Printing store errors the same way in every command.
enum StoreFailure {
    static func report<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch {
            Terminal.error("restmap: \(error)\n")
            throw ExitCode.failure
        }
    }

    static func report<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch {
            Terminal.error("restmap: \(error)\n")
            throw ExitCode.failure
        }
    }
}

/// A body file mapped and saved by `store import` and `seed`.
enum BodyImport {
    /// Maps the body in `file` ('-': standard input) as the response `head` describes (its own
    /// body is not read) and saves it in one transaction. A large array in a regular file is read
    /// in parts by the mapping threads (`Mapper.map(_:bodyIn:options:)`), as `restmap map` reads
    /// it; anything else is read whole first. Store and mapping failures are reported
    /// (`StoreFailure`); a file that cannot be read throws `CommandInput.read`'s error.
    static func save(_ file: String, as head: Response, in store: RecordStore, options: MappingOptions,
                     isCompletePage: Bool = true) async throws -> (result: MappingResult, summary: SaveSummary) {
        if let opened = CommandInput.openRegularFile(file, minimumBytes: Mapper.smallestSplitBody) {
            defer { close(opened.descriptor) }
            if let mapped = try StoreFailure.report({ try store.mapper.map(head, bodyIn: opened.bytes, options: options) }) {
                return (mapped, try await StoreFailure.report { try await store.save(mapped, of: head, isCompletePage: isCompletePage) })
            }
        }
        var response = head
        response.body = try CommandInput.read(file)
        return try await StoreFailure.report { try await store.importResponse(response, options: options, isCompletePage: isCompletePage) }
    }
}

/// The records a store command prints: their format, and how deep related records are read.
struct StoredRecordOutputOptions: ParsableArguments {
    @OptionGroup var output: RecordOutputOptions

    @Option(name: .long, help: "How many relationships deep related records are read.")
    var depth = 1

    func write(_ records: [Record]) { output.write(records) }
}

/// `restmap store import`: maps a body and saves the records.
struct StoreImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Map a response body and save its records in the store.",
        discussion: """
            One transaction per body: upserts by identity, then the schema's store rules (tombstone, modifiedBy, \
            and orphans after a complete successful GET). Prints 'inserted N, updated N, unchanged N, deleted N \
            orphans, skipped N not newer'. Records that fail to map are reported and make the exit status 1; the \
            others are saved, and orphans are then kept. The database is created when missing; a store built by \
            an earlier version of the schema is migrated (additive changes) or refused (destructive ones, see --rebuild).

            Example:
              restmap store import --schema Schemas/github.yaml --db github.sqlite \\
                --path /users/octocat/starred Samples/github/starred.json
            """)

    @OptionGroup var store: StoreOptions

    @Option(name: .long, help: "The request method.")
    var method = "GET"

    @Option(name: .long, help: "The request path, relative to the schema's baseURL.")
    var path = "/"

    @Option(name: .long, help: "The response status code.")
    var status = 200

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A routing parameter.", valueName: "name=value"))
    var param: [String] = []

    @Flag(name: .long, help: "The body is one page of a paginated GET: orphans are kept.")
    var partial = false

    @OptionGroup var threads: JobsOption

    @Argument(help: ArgumentHelp("The response body; '-' reads standard input.", valueName: "BODY-FILE"))
    var body: String

    func run() async throws {
        let recordStore = try await store.open()
        defer { try? recordStore.close() }
        let headers = BodyMediaType.implied(byExtensionOf: body).map { ["Content-Type": $0] } ?? [:]
        let response = Response(method: method, path: path, status: status, headers: headers, body: [],
                                parameters: try Pairs.parse(param, separator: "=", option: "--param"))
        let (result, summary) = try await BodyImport.save(body, as: response, in: recordStore, options: MappingOptions(jobs: threads.jobs),
                                                          isCompletePage: !partial)
        Terminal.out("\(summary)\n")
        for error in result.errors { Terminal.error("restmap: record failed: \(error)\n") }
        if !result.errors.isEmpty { throw ExitCode.failure }
    }
}

/// `restmap store query`: reads records of an entity, or what a GET path returned.
struct StoreQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print stored records of an entity, or the records a GET path returned last (offline).",
        discussion: """
            Records print as 'restmap map' prints them. --path answers from the store alone. Only reads: a missing \
            database is an error (none is created), and a store the schema would migrate is refused (import with \
            the schema migrates it). --where compares with the attribute's type: a value that is not one (id=12abc \
            for an integer) is an error.

            Examples (after the import example of 'restmap store import --help'):
              restmap store query --schema Schemas/github.yaml --db github.sqlite \\
                Repository --order stargazersCount:desc --limit 2
              restmap store query --schema Schemas/github.yaml --db github.sqlite \\
                Repository --where name=RestKit
              restmap store query --schema Schemas/github.yaml --db github.sqlite \\
                --path /users/octocat/starred
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "The entity to read (omit with --path).")
    var entity: String?

    @Option(name: .customLong("where"), parsing: .singleValue,
            help: ArgumentHelp("Keep records whose attribute equals the value (repeatable).", valueName: "attribute=value"))
    var filters: [String] = []

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("Order by an attribute (repeatable).", valueName: "attribute[:desc]"))
    var order: [String] = []

    @Option(name: .long, help: "At most this many records.")
    var limit: Int?

    @Option(name: .long, help: "The records the last successful GET of this path returned, in response order.")
    var path: String?

    @OptionGroup var output: StoredRecordOutputOptions

    func validate() throws {
        if (entity == nil) == (path == nil) { throw ValidationError("give an ENTITY or --path, not both") }
        if path != nil, !(filters.isEmpty && order.isEmpty && limit == nil) {
            throw ValidationError("--where, --order and --limit apply to an ENTITY, not to --path")
        }
    }

    func run() async throws {
        let recordStore = try await store.openForReading()
        defer { try? recordStore.close() }
        let records: [Record]
        if let path {
            guard let remembered = try await StoreFailure.report({ try await recordStore.records(forPath: path, depth: output.depth) }) else {
                Terminal.error("restmap: the store has no saved GET of \(path)\n")
                throw ExitCode.failure
            }
            records = remembered
        } else {
            let query = StoreQuery(
                entity: entity ?? "",
                filters: try Pairs.ordered(filters, separator: "=", option: "--where").map { ($0.0, Value.string($0.1)) },
                order: order.map { item in
                    item.hasSuffix(":desc") ? (String(item.dropLast(5)), false)
                        : (item.hasSuffix(":asc") ? String(item.dropLast(4)) : item, true)
                },
                limit: limit, depth: output.depth)
            records = try await StoreFailure.report { try await recordStore.records(query) }
        }
        output.write(records)
        Terminal.error("\(records.count) record\(records.count == 1 ? "" : "s")\n")
    }
}

/// `restmap store search`: full-text search over the schema's `store.search` attributes.
struct StoreSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Full-text search of stored records: every term as a prefix, ignoring case and diacritics, best first.",
        discussion: """
            Searches the schema's store.search attributes (an ENTITY first limits the search to it). Only reads: \
            a missing database is an error (none is created).

            Example (after the import example of 'restmap store import --help'):
              restmap store search --schema Schemas/github.yaml --db github.sqlite \\
                Repository rest
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("An optional entity, then the search terms.", valueName: "ENTITY] [TEXT"))
    var words: [String]

    @Option(name: .long, help: "At most this many records.")
    var limit = 50

    @OptionGroup var output: StoredRecordOutputOptions

    func run() async throws {
        let recordStore = try await store.openForReading()
        defer { try? recordStore.close() }
        var terms = words
        var entity: String?
        if terms.count > 1, recordStore.mapper.schema.entity(named: terms[0]) != nil { entity = terms.removeFirst() }
        let text = terms.joined(separator: " ")
        let records = try await StoreFailure.report { try await recordStore.search(text, entity: entity, limit: limit, depth: output.depth) }
        output.write(records)
        Terminal.error("\(records.count) record\(records.count == 1 ? "" : "s")\n")
    }
}

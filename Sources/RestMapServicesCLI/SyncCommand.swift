import ArgumentParser
import Foundation
import RestMap
import RestMapCLICore
import RestMapClient
import RestMapStore
import RestMapStorePostgres
import RestMapSync

/// `restmap sync`: keep a store in step with a service, as the schema's `sync:` says.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: ServicesCommand.sync.abstract,
        discussion: """
            Runs the schema's sync: resources (Docs/Sync.md), parents first. Each page is saved with the state \
            that follows it in one transaction: kill it at any moment and run it again, and it goes on where it \
            stopped without storing any record twice. Exit status: 0 when every resource synced, 1 when some \
            failed (the others are still committed and reported), 3 for a transport failure, 2 for a usage problem.

            Examples:
              restmap sync --schema Schemas/sync.yaml --db sync.sqlite --base-url http://127.0.0.1:8080
              restmap sync status --schema Schemas/sync.yaml --db sync.sqlite
              restmap sync reset --schema Schemas/sync.yaml --db sync.sqlite events --parent accountID=1
            """,
        subcommands: [SyncRunCommand.self, SyncStatusCommand.self, SyncResetCommand.self],
        defaultSubcommand: SyncRunCommand.self)
}

/// The options the sync commands share: the client's and the database.
struct SyncOptionsGroup: ParsableArguments {
    @OptionGroup var client: ClientOptions

    @Option(name: .long, help: ArgumentHelp("The SQLite database file, or a postgres:// URL (created when missing). "
        + "Default: $RESTMAP_DATABASE_URL.", valueName: "file-or-url"))
    var db: String?

    /// The synchronizer of the store (`reading`: opened for reading only); `tokenInStore` keeps
    /// the OAuth 2.0 refresh token in the store (`StoreTokenKeeper`).
    func synchronizer(reading: Bool = false, tokenInStore: Bool = false) async throws -> Synchronizer {
        let database = try StoreDatabase.named(db)
        let mapper = try client.makeMapper()
        let store = try await StoreFailure.report { try await RecordStore.open(database, mapper: mapper, readOnly: reading) }
        do {
            let keeper = tokenInStore ? StoreTokenKeeper(store: store) : nil
            return Synchronizer(client: try client.makeClient(mapper: mapper, refreshTokenKeeper: keeper), store: store)
        } catch {
            try? store.close()
            throw error
        }
    }
}

struct SyncRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Sync the resources (all, or those named), parents first.",
        discussion: """
            Examples:
              restmap sync --schema Schemas/sync.yaml --db sync.sqlite --base-url http://127.0.0.1:8080
              restmap sync run --schema Schemas/sync.yaml --db sync.sqlite events --full-refresh
            """)

    @OptionGroup var options: SyncOptionsGroup

    @Flag(name: .customLong("full-refresh"), help: "Re-read everything from each cursor's start, ignoring the state.")
    var fullRefresh = false

    @Option(name: .customLong("max-pages"), help: ArgumentHelp("At most this many pages per resource and parent; the next run goes on from there.", valueName: "count"))
    var maxPages: Int?

    @Option(name: .long, help: ArgumentHelp("Parents of one resource synced at once (1-64).", valueName: "count"))
    var concurrency = 1

    @Flag(name: .customLong("token-in-store"), help: ArgumentHelp(
        "Keep the OAuth 2.0 refresh token in the store (--db) instead of the schema's tokenStore file, refreshed under "
        + "the store's lock: for syncs on several machines into one PostgreSQL store (Docs/Sync.md)."))
    var tokenInStore = false

    @Option(name: .long, help: "Output at the end: text (one line per resource) or json (a machine-readable summary).")
    var format: SummaryFormat = .text

    @Argument(help: ArgumentHelp("Resources to sync (default: all).", valueName: "RESOURCE"))
    var resources: [String] = []

    enum SummaryFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func validate() throws {
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64") }
    }

    func run() async throws {
        let synchronizer = try await options.synchronizer(tokenInStore: tokenInStore)
        var reports: [SyncResourceReport] = []
        var failure: (any Error)?
        var progress = SyncProgress(live: isatty(STDERR_FILENO) == 1)
        do {
            for try await event in synchronizer.run(SyncOptions(resources: resources, fullRefresh: fullRefresh, maxPages: maxPages, concurrency: concurrency)) {
                progress.show(event, statistics: synchronizer.client.statistics)
                if case .resourceFinished(let report) = event { reports.append(report) }
            }
        } catch {
            failure = error
        }
        progress.end()
        await synchronizer.client.shutdown()
        if let failure {
            Terminal.error("restmap: \(failure)\n")
            throw ExitCode.failure
        }
        switch format {
        case .text:
            for report in reports {
                print("\(report.resource): \(report.parents) run\(report.parents == 1 ? "" : "s"), \(report.pages) pages, \(report.records) records"
                    + (report.failures.isEmpty ? "" : ", \(report.failures.count) failed"))
            }
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(["resources": reports]), as: UTF8.self))
        }
        if reports.contains(where: \.transportFailed) { throw ExitCode(3) }
        if reports.contains(where: { !$0.failures.isEmpty }) { throw ExitCode.failure }
    }
}

struct SyncStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The state of every resource and parent: cursor, last run, records, pages, stop reason, last error.",
        discussion: """
            Example:
              restmap sync status --schema Schemas/sync.yaml --db sync.sqlite
            """)

    @OptionGroup var options: SyncOptionsGroup

    func run() async throws {
        let synchronizer = try await options.synchronizer(reading: true)
        let statuses = try await StoreFailure.report { try await synchronizer.status() }
        await synchronizer.client.shutdown()
        for status in statuses {
            let state = status.state
            var fields = ["cursor \(state.highWater?.description ?? "none")", "\(state.records) records", "\(state.pages) pages"]
            if let lastRun = state.lastRun { fields.append("last run \(SyncCursorValue.date(lastRun))") }
            if state.resume != nil { fields.append("unfinished: resumes at page \(state.resume!.number)") }
            if let stop = state.stopReason { fields.append("stopped: \(stop)") }
            if let error = state.lastError { fields.append("last error: \(error)") }
            print("\(status.resource)\(status.parent.isEmpty ? "" : " [\(status.parent)]"): " + fields.joined(separator: ", "))
        }
        Terminal.error("restmap: \(statuses.count) state\(statuses.count == 1 ? "" : "s")\n")
    }
}

struct SyncResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Forget a resource's state (the next run reads from the cursor's start), or set it.",
        discussion: """
            Examples:
              restmap sync reset --schema Schemas/sync.yaml --db sync.sqlite events
              restmap sync reset --schema Schemas/sync.yaml --db sync.sqlite events --parent accountID=1 --to 2026-01-01T00:00:00Z
            """)

    @OptionGroup var options: SyncOptionsGroup

    @Option(name: .long, help: ArgumentHelp("Only this parent, as status names it (accountID=1).", valueName: "parent"))
    var parent: String?

    @Option(name: .long, help: ArgumentHelp("Set the cursor to this value instead of forgetting it.", valueName: "value"))
    var to: String?

    @Argument(help: ArgumentHelp("The resource.", valueName: "RESOURCE"))
    var resource: String

    func run() async throws {
        let synchronizer = try await options.synchronizer()
        let changed = try await StoreFailure.report { try await synchronizer.reset(resource: resource, parent: parent, to: to) }
        await synchronizer.client.shutdown()
        Terminal.error("restmap: \(to == nil ? "forgot" : "set") \(changed) state\(changed == 1 ? "" : "s") of \(resource)\n")
    }
}

/// What `restmap sync` shows while it runs, on standard error: on a terminal one live line per
/// resource (parents reached, pages, records, requests per second, waits for the rate budget,
/// the time left by parents), else
/// one plain line per page.
struct SyncProgress {
    let live: Bool
    private var resource = ""
    private var parents = 0
    private var parentsDone: Set<String> = []
    /// Set when the resource ended: every parent is done.
    private var parentsFinished: Int?
    private var pages = 0
    private var records = 0
    private var started = Date()
    private var requestsAtStart = 0
    private var lineOpen = false

    init(live: Bool) {
        self.live = live
    }

    mutating func show(_ event: SyncEvent, statistics: ClientStatistics) {
        let requests = statistics.requests
        switch event {
        case .resourceStarted(let name, let count):
            (resource, parents, parentsDone, parentsFinished, pages, records, started, requestsAtStart) = (name, count, [], nil, 0, 0, Date(), requests)
            if !live { Terminal.error("restmap: sync \(name): \(count) run\(count == 1 ? "" : "s")\n") }
        case .pageSaved(let name, let parent, let page, let count):
            pages += 1
            records += count
            if live {
                parentsDone.insert(parent)
                draw(requests: requests, waits: statistics.rateLimitWaits)
            } else {
                Terminal.error("restmap: sync \(name)\(parent.isEmpty ? "" : " [\(parent)]"): page \(page), \(count) record\(count == 1 ? "" : "s")\n")
            }
        case .note(let text):
            clearLine()
            Terminal.error("restmap: note: \(text)\n")
        case .resourceFinished(let report):
            if live {
                parentsDone = []
                parentsFinished = report.parents
                draw(requests: requests, waits: statistics.rateLimitWaits)
                Terminal.error("\n")
                lineOpen = false
            }
            for message in report.failures {
                clearLine()
                Terminal.error("restmap: sync failed: \(message)\n")
            }
        }
    }

    private mutating func draw(requests: Int, waits: Int) {
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(requests - requestsAtStart) / elapsed
        let reached = parentsFinished ?? parentsDone.count
        var line = "sync \(resource): \(reached)/\(parents) parents, \(pages) pages, \(records) records, \(String(format: "%.0f", rate)) req/s"
        if waits > 0 { line += ", \(waits) waits for the rate budget" }
        if parents > 1, reached > 0, reached < parents {
            let left = elapsed / Double(reached) * Double(parents - reached)
            line += String(format: ", about %.0f s left", left)
        }
        Terminal.error("\r\u{1B}[K" + line)
        lineOpen = true
    }

    private mutating func clearLine() {
        guard live, lineOpen else { return }
        Terminal.error("\r\u{1B}[K")
        lineOpen = false
    }

    mutating func end() {
        if lineOpen { Terminal.error("\n") }
    }
}

import ArgumentParser
import Foundation
import RestMap
import RestMapCLICore
import RestMapClient
import RestMapStore
import RestMapStorePostgres

/// `restmap get`: fetches a route or path, follows its pages, and prints the mapped records.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: ServicesCommand.get.abstract,
        discussion: """
            TARGET is a named route of the schema or a path relative to the base URL (starting with '/'). \
            Without --all-pages only the first page is fetched; with it, at most 1000 pages unless --max-pages \
            or the schema's maxPages says otherwise. A final line on standard error says how many pages and \
            records came and why the run stopped. A failed run prints nothing on standard output with --format \
            json or csv (with ndjson, the records of the pages before the failure stay printed). Exit status: \
            0 success, 1 an error response or records that failed to map, 3 a transport failure (after \
            retries), a refused redirect or answer, or an exceeded limit, 4 the default page cap stopped a \
            run with more pages to come (the records fetched are printed).

            Examples:
              restmap get --schema Schemas/articles.yaml pages --all-pages
              restmap get --schema Schemas/articles.yaml --param id=7 article
              restmap get --schema Schemas/articles.yaml /page/articles --query per_page=50 --format ndjson
            """
    )

    @OptionGroup var client: ClientOptions

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A query parameter added to the request.", valueName: "name=value"))
    var query: [String] = []

    @Flag(name: .customLong("all-pages"), help: "Follow the pagination to its end.")
    var allPages = false

    @Option(name: .customLong("max-pages"), help: "Stop after this many pages (default: the schema's maxPages, else a cap of 1000).")
    var maxPages: Int?

    @Option(name: .long, help: "Pages fetched at once when the page count is known up front (page and offset kinds).")
    var concurrency = 1

    /// NDJSON streams page by page; JSON and CSV print once every page is in.
    @OptionGroup var output: RecordOutputOptions

    @Option(name: .long, help: ArgumentHelp("Save the records of every page in this store, a SQLite file or a postgres:// URL (Docs/Store.md); "
        + "read from it when the network fails.", valueName: "db"))
    var store: String?

    @Flag(name: .long, help: "Read the records the last GET of TARGET saved in --store, without the network.")
    var offline = false

    @Argument(help: ArgumentHelp("A route name or a path.", valueName: "TARGET"))
    var target: String

    func validate() throws {
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if offline, store == nil { throw ValidationError("--offline reads from a store: give --store DB") }
    }

    func run() async throws {
        let client = try self.client.makeClient()
        // --offline only reads: the store must exist, and is neither created nor migrated.
        let recordStore: RecordStore?
        do {
            if let store {
                recordStore = try await StoreFailure.report { try await RecordStore.open(store, mapper: client.mapper, readOnly: offline) }
            } else {
                recordStore = nil
            }
        } catch {
            await client.shutdown()   // the client must be shut down before it goes
            throw error
        }
        let status = if offline, let recordStore { await readOffline(from: recordStore, client: client) } else {
            await fetch(with: client, store: recordStore)
        }
        try? recordStore?.close()
        await client.shutdown()
        if status != 0 { throw ExitCode(status) }
    }

    /// Prints what the last saved GET of the target returned, from the store alone.
    private func readOffline(from store: RecordStore, client: RestClient) async -> Int32 {
        do {
            // The first page's URL, as `save` kept it: a paginated target answers with its first page.
            guard let url = try pages(of: client, maxPages: 1).firstURL else {
                throw ValidationError("cannot resolve \(target)")
            }
            guard let records = try await store.records(forPath: url) else {
                Terminal.error("restmap: the store has no saved GET of \(client.mapper.requestPath(url))\n")
                return 1
            }
            output.write(records)
            Terminal.error("restmap: \(records.count) record\(records.count == 1 ? "" : "s") from the store (offline)\n")
            return 0
        } catch {
            Terminal.error("restmap: \(error)\n")
            return 1
        }
    }

    /// Saves one fetched page (only a response that is the whole answer, not one page of several,
    /// deletes orphans) and prints the store's summary; `false` when the save failed.
    private func save(_ page: Page, in store: RecordStore) async -> Bool {
        let response = Response(method: page.response.method.rawValue, path: page.response.url, status: page.response.status.code, body: [])
        do {
            let summary = try await store.save(page.response.result, of: response, isCompletePage: page.stopReason == .notPaginated)
            Terminal.error("restmap: store: \(summary)\n")
            return true
        } catch {
            Terminal.error("restmap: cannot save \(page.response.url) in the store: \(error)\n")
            return false
        }
    }

    /// The pages of the target (a route or a path) with the command's parameters and query.
    private func pages(of client: RestClient, maxPages: Int?) throws -> PageSequence {
        let query = try Pairs.parse(self.query, separator: "=", option: "--query")
        return isPath(target)
            ? client.pages(path: target, query: query, maxPages: maxPages, concurrency: concurrency)
            : client.pages(route: target, parameters: try self.client.parameters, query: query, maxPages: maxPages, concurrency: concurrency)
    }

    private func fetch(with client: RestClient, store: RecordStore?) async -> Int32 {
        let limit = allPages ? maxPages : 1
        let pages: PageSequence
        do { pages = try self.pages(of: client, maxPages: limit) } catch {
            Terminal.error("restmap: \(error)\n")
            return 1
        }
        var progress = Progress()
        var collected: [Record] = []
        var failedRecords = 0
        do {
            for try await page in pages {
                progress.add(page)
                for error in page.response.result.errors { Terminal.error("restmap: record failed: \(page.response.url): \(error)\n") }
                failedRecords += page.response.result.errors.count
                if output.format == .ndjson {
                    let (output, records) = (output, page.records)
                    await RestClient.offEventLoops { output.write(records) }
                } else {
                    collected += page.records
                }
                if let reason = page.stopReason { progress.stopReason = reason }
                if let store, !(await save(page, in: store)) {
                    // A failed run prints no (partial) result.
                    progress.finish()
                    return 1
                }
            }
        } catch {
            progress.finish()
            let clientError = error as? ClientError
            Terminal.error("restmap: \(error)\n")
            // Only when nothing was printed yet: the store's answer is then the whole output.
            if let store, clientError?.exitStatus == 3, progress.pages == 0 {
                Terminal.error("restmap: the network failed; reading \(target) from the store\n")
                return await readOffline(from: store, client: client)
            }
            // A failed run prints no (partial or empty) result: `get … > out.json` must not leave
            // a valid-looking one. NDJSON lines of earlier pages were printed already.
            return clientError?.exitStatus ?? 3
        }
        progress.finish()
        printCollected(collected)
        Terminal.error("restmap: \(progress.summary)\n")
        if failedRecords > 0 { return 1 }
        if let reason = progress.stopReason, reason.isIncomplete {
            Terminal.error("restmap: warning: the result is incomplete: more pages follow; give --max-pages (or the schema's maxPages) to fetch more\n")
            return Self.incompleteStatus
        }
        return 0
    }

    /// The exit status of a run the default page cap stopped with more pages to come.
    static let incompleteStatus: Int32 = 4

    /// Prints the records gathered from every page (NDJSON was printed page by page).
    private func printCollected(_ records: [Record]) {
        guard output.format != .ndjson else { return }
        output.write(records)
    }
}

/// Pages, records and bytes so far; a progress line on standard error when it is a terminal.
struct Progress {
    var pages = 0
    var records = 0
    var bytes = 0
    var stopReason: StopReason?
    private let started = ContinuousClock.now
    private let isTerminal = isatty(2) == 1

    mutating func add(_ page: Page) {
        pages += 1
        records += page.records.count
        bytes += page.response.bodyBytes
        guard isTerminal else { return }
        let elapsed = (ContinuousClock.now - started).components
        let seconds = max(0.001, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        Terminal.error(String(format: "\r\u{1B}[K%d pages, %d records, %.1f MB, %.1f MB/s", pages, records,
                              Double(bytes) / 1e6, Double(bytes) / 1e6 / seconds))
    }

    func finish() {
        if isTerminal, pages > 0 { Terminal.error("\r\u{1B}[K") }
    }

    var summary: String {
        "\(pages) page\(pages == 1 ? "" : "s"), \(records) record\(records == 1 ? "" : "s"), stopped: \(stopReason?.description ?? "unknown")"
    }
}

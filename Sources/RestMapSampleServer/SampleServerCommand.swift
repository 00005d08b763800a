import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// `restmap-sample-server`: serves the seed APIs from `Samples/` on loopback.
@main
struct SampleServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restmap-sample-server",
        abstract: "Serve the seed APIs (MongoHQ, Stashboard, GitHub-like, task list, RSAPI, articles) from the Samples data, and a changing dataset for sync engines.",
        discussion: """
            Prints one line, "listening on http://HOST:PORT", on standard output once it accepts connections; \
            logs go to standard error. The endpoints, test credentials and fault parameters are in Docs/SampleServer.md.
            """
    )

    @Option(help: "The address to bind; only loopback addresses unless --allow-remote.")
    var host = "127.0.0.1"

    @Option(help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(help: ArgumentHelp("The Samples folder (default: Samples in the working directory or above the binary).", valueName: "dir"))
    var data: String?

    @Option(help: "How many repositories the generated GitHub-like list has.")
    var repositories = 250

    @Option(help: "How many articles the paginated article collections have.")
    var articles = 95

    @Option(name: .customLong("sync-accounts"), help: "How many accounts the /sync dataset has.")
    var syncAccounts = 3

    @Option(name: .customLong("sync-events"), help: "How many events each /sync account starts with.")
    var syncEvents = 20

    @Option(name: .customLong("sync-notes"), help: "How many notes each /sync account has.")
    var syncNotes = 5

    @Option(help: "The accepted bearer token.")
    var token = "sample-token"

    @Option(name: .customLong("api-key"), help: "The accepted API key.")
    var apiKey = "sample-api-key"

    @Option(help: "The accepted basic-auth user name.")
    var username = "sample-user"

    @Option(help: "The accepted basic-auth and RSAPI login password.")
    var password = "sample-password"

    @Option(name: .customLong("rate-limit"), help: ArgumentHelp("The budget of /limited/items: N requests per SECONDS.", valueName: "N/SECONDS"))
    var rateLimit = "5/1"

    @Option(name: .customLong("oauth-expires-in"), help: "Seconds an OAuth access token of /oauth/token lives.")
    var oauthExpiresIn = 60

    @Option(name: .customLong("oauth-refresh-token"), help: "The initial valid OAuth refresh token (rotated by each refresh).")
    var oauthRefreshToken = "sample-refresh-token"

    @Flag(name: .customLong("allow-remote"), help: "Allow binding a non-loopback address.")
    var allowRemote = false

    @Flag(help: "Log one line per request on standard error.")
    var verbose = false

    static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "localhost"]

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535") }
        guard (0...1_000_000).contains(repositories) else { throw ValidationError("--repositories must be in 0...1000000") }
        guard (0...1_000_000).contains(articles) else { throw ValidationError("--articles must be in 0...1000000") }
        guard (0...100_000).contains(syncAccounts) else { throw ValidationError("--sync-accounts must be in 0...100000") }
        for (name, perAccount) in [("--sync-events", syncEvents), ("--sync-notes", syncNotes)] {
            guard (0...1_000_000).contains(perAccount), syncAccounts * perAccount <= 1_000_000 else {
                throw ValidationError("\(name) must be in 0...1000000, and --sync-accounts times \(name) at most 1000000")
            }
        }
        guard allowRemote || Self.loopbackHosts.contains(host) else {
            throw ValidationError("--host \(host) is not a loopback address; pass --allow-remote to bind it")
        }
        guard LimitedAPI.parse(rateLimit) != nil else { throw ValidationError("--rate-limit: expected N/SECONDS with both at least 1, got '\(rateLimit)'") }
        guard (1...86_400).contains(oauthExpiresIn) else { throw ValidationError("--oauth-expires-in must be in 1...86400") }
        for (name, value) in [("--oauth-refresh-token", oauthRefreshToken), ("--token", token), ("--api-key", apiKey), ("--username", username), ("--password", password)] where value.isEmpty {
            throw ValidationError("\(name) must not be empty")
        }
    }

    /// Runs Swift concurrency's jobs on the event loops that serve the connections, so a request
    /// is handled where it was read instead of hopping to the cooperative pool and back (about a
    /// fifth of the server's time per request went to those thread switches).
    static func main() async {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }

    func run() async throws {
        // A sample that cannot be read ends the run with its path (exit 1, no usage text).
        let samples = try data.map { SampleData(folder: URL(fileURLWithPath: $0)) } ?? SampleData.locate()
        let credentials = Credentials(token: token, apiKey: apiKey, username: username, password: password)
        var logger = Logger(label: "restmap.sample-server")
        logger.logLevel = verbose ? .info : .warning
        let faultCounter = FaultCounter()
        let requestLog = RequestLog()
        let urlHost = host.contains(":") ? "[\(host)]" : host
        // Around every route, outermost first: the request log, the faults (and the body faults on
        // whatever answers), conditional requests, and the JSON 404 of paths no route serves.
        let router = Router(context: SampleRequestContext.self)
        router.add(middleware: RequestLogMiddleware(requestLog: requestLog, logger: logger))
        router.add(middleware: FaultMiddleware(faultCounter: faultCounter, fallbackAuthority: "\(urlHost):\(port)"))
        router.add(middleware: ConditionalRequestMiddleware())
        router.add(middleware: NotFoundMiddleware())
        try APIs.register(
            on: router, data: samples, credentials: credentials, faultCounter: faultCounter, requestLog: requestLog,
            repositories: repositories, articles: articles,
            sync: SyncAPI.Size(accounts: syncAccounts, events: syncEvents, notes: syncNotes)
        )
        let budget = LimitedAPI.parse(rateLimit) ?? (5, 1)
        LimitedAPI(limit: budget.limit, window: budget.window).register(on: router)
        OAuthAPI(initialRefreshToken: oauthRefreshToken, expiresIn: oauthExpiresIn, faultCounter: faultCounter).register(on: router)
        router.answerMethodNotAllowed()
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                let line = "listening on http://\(urlHost):\(channel.localAddress?.port ?? port)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger
        )
        // A test fixture stops at once on SIGTERM or SIGINT: a graceful shutdown would wait for
        // the connections its clients keep open (and a client under test may hold one forever).
        let stop = Self.exitOnSignals([SIGTERM, SIGINT])
        defer { stop.forEach { $0.cancel() } }
        try await application.runService(gracefulShutdownSignals: [])
    }

    /// Signal sources that end the process with status 0 when one of `signals` arrives.
    private static func exitOnSignals(_ signals: [Int32]) -> [any DispatchSourceSignal] {
        signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Foundation.exit(0) }
            source.resume()
            return source
        }
    }
}

import ArgumentParser
import Foundation
import HTTPTypes
import RestMap
import RestMapCLICore
import RestMapClient

/// Options `get` and `send` share: the schema, the base URL, headers, limits, logging.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "The schema file.")
    var schema: String

    @Option(name: .customLong("base-url"), help: "The service's base URL (default: the schema's baseURL).")
    var baseURL: String?

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A route parameter (:name in the path).", valueName: "name=value"))
    var param: [String] = []

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("A request header.", valueName: "name:value"))
    var header: [String] = []

    @Option(name: .customLong("max-body"), help: ArgumentHelp("Largest response body in bytes, after decompression (default 256 MB).", valueName: "bytes"))
    var maxBody: Int?

    @Option(name: .customLong("max-values"), help: ArgumentHelp(
        "Most JSON values (objects, arrays, names, strings, numbers, literals) a response body may hold (default 10000000).",
        valueName: "count"))
    var maxValues: Int?

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Keep ETag / Last-Modified validators and bodies in this folder.", valueName: "dir"))
    var cacheDirectory: String?

    @Flag(name: .long, help: "Log every request (method, URL, status, bytes, time) on standard error; secrets are redacted.")
    var verbose = false

    @OptionGroup var plugins: PluginOptions

    /// Starts logging (RESTMAP_LOG, `--verbose`) and loads the schema's mapper.
    func makeMapper() throws -> Mapper {
        var problems: [String] = []
        var levels = RestMapLogging.Levels(parsing: ProcessEnvironment.value("RESTMAP_LOG") ?? "", problems: &problems)
        if verbose, levels.perLabel["client"] == nil { levels.perLabel["client"] = .debug }
        RestMapLogging.bootstrap(levels)
        for problem in problems { Terminal.error("restmap: \(problem)\n") }
        return try plugins.mapper(for: schema)
    }

    /// Builds the client of `mapper` (`makeMapper()` when `nil`); `refreshTokenKeeper` keeps its
    /// OAuth 2.0 refresh token in place of the schema's `tokenStore`.
    func makeClient(mapper: Mapper? = nil, refreshTokenKeeper: (any RefreshTokenKeeper)? = nil) throws -> RestClient {
        let mapper = try mapper ?? makeMapper()
        var configuration = ClientConfiguration(schema: mapper.schema)
        configuration.refreshTokenKeeper = refreshTokenKeeper
        if let baseURL { configuration.baseURL = baseURL }
        if let maxBody {
            guard maxBody > 0 else { throw ValidationError("--max-body must be a positive number of bytes") }
            configuration.maxBodyBytes = maxBody
        }
        if let maxValues {
            guard maxValues > 0 else { throw ValidationError("--max-values must be a positive number of values") }
            configuration.maxBodyValues = maxValues
        }
        if let cacheDirectory { configuration.cacheDirectory = cacheDirectory }
        // One command asks each URL once (a page URL seen before stops the run), so a cache kept
        // only in this process's memory could never answer: without a folder there is none.
        if configuration.cacheDirectory == nil { configuration.cache = false }
        for (name, value) in try Pairs.ordered(header, separator: ":", option: "--header") {
            guard let fieldName = HTTPField.Name(name) else {
                throw ValidationError("--header: '\(name)' is not a header field name (letters, digits and !#$%&'*+-.^_`|~)")
            }
            configuration.headers[fieldName] = value   // a later one wins
        }
        do { return try RestClient(mapper: mapper, configuration: configuration) } catch {
            Terminal.error("restmap: \(error)\n")
            throw ExitCode(error.exitStatus)
        }
    }

    var parameters: [String: String] {
        get throws { try Pairs.parse(param, separator: "=", option: "--param") }
    }
}

/// Whether a command-line target names a path (`/users/octocat`, a full URL) rather than a route.
func isPath(_ target: String) -> Bool {
    target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://")
}

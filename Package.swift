// swift-tools-version:6.0
import PackageDescription

// RestMap: a schema-driven mapping runtime. One module per concern:
//
//   RestMapJSON        JSON bytes -> tape, exact numbers, writing          (no dependencies)
//   CLibYAML           libyaml's parser (vendored, MIT), read event by event by the schema loader
//   RestMapSchema      schema model, loading, grammar, validation          (CLibYAML only)
//   CRestMapPluginABI  the versioned C boundary of loadable plugins        (header only)
//   RestMapPluginKit   what a plugin author imports: Value, transformers   (C ABI only)
//   RestMapPlugins     the transformer registry: plugins linked in process (re-exported by RestMap)
//   RestMapPluginLoader  loading plugins from disk: search path, trust checks, dlopen
//   RestMap            the interpreter: plan, key paths, records, requests, routes
//   RestMapClient      the REST client: requests, auth, pagination, retries, caching (async-http-client)
//   RestMapSync        restmap sync: keeps a store in step with a service (client + store)
//   RestMapStore       the store: tables from the schema, upserts, search; its SQLite engine (GRDB)
//   RestMapStorePostgres  the store's PostgreSQL engine (postgres-nio)
//   CRestMapSQLite     process-wide SQLite settings Swift cannot call (variadic sqlite3_config)
//   RestMapAuthoring   schema inference from samples (`restmap init`), schema tests (`restmap test`)
//   RestMapLSP         the language server of schema files (`restmap lsp`)
//   RestMapCLICore     what both executables share: options, reading input, running a command line
//   restmap            the command-line tool: validate, map, test, init, lsp, schema, plugins
//   restmap-services   its commands that reach services and databases (get, send, store, seed, sync),
//                      which `restmap` hands over to, so that its other commands load none of that
//   CZlib              the system zlib, for the sample server's gzip bodies
//   restmap-sample-server  a Hummingbird server of the seed APIs, for tests, benchmarks and the README
//
// First-party plugins live under Plugins/: each has a static module (link it in process) and a
// dynamic library product (load it at run time by name).

let strictSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "RestMap",
    products: [
        .executable(name: "restmap", targets: ["RestMapCLI"]),
        .executable(name: "restmap-services", targets: ["RestMapServicesCLI"]),
        .library(name: "RestMap", targets: ["RestMap"]),
        .library(name: "RestMapSchema", targets: ["RestMapSchema"]),
        .library(name: "RestMapClient", targets: ["RestMapClient"]),
        .library(name: "RestMapStore", targets: ["RestMapStore"]),
        .library(name: "RestMapStorePostgres", targets: ["RestMapStorePostgres"]),
        .library(name: "RestMapSync", targets: ["RestMapSync"]),
        .executable(name: "restmap-sample-server", targets: ["RestMapSampleServer"]),
        .library(name: "RestMapJSON", targets: ["RestMapJSON"]),
        .library(name: "RestMapPluginKit", targets: ["RestMapPluginKit"]),
        .library(name: "RestMapPluginLoader", targets: ["RestMapPluginLoader"]),
        .library(name: "RestMapDates", targets: ["RestMapDates"]),
        .library(name: "RestMapIDs", targets: ["RestMapIDs"]),
        .library(name: "RestMapCSV", targets: ["RestMapCSV"]),
        // Loadable plugins: librestmap-<name>.so, found by name on the plugin search path.
        .library(name: "restmap-dates", type: .dynamic, targets: ["RestMapDatesPlugin"]),
        .library(name: "restmap-dates-calendar", type: .dynamic, targets: ["RestMapDatesCalendar"]),
        .library(name: "restmap-ids", type: .dynamic, targets: ["RestMapIDsPlugin"]),
        .library(name: "restmap-csv", type: .dynamic, targets: ["RestMapCSVPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .target(name: "RestMapJSON", swiftSettings: strictSettings),
        .target(name: "CLibYAML", exclude: ["LICENSE", "README.md"], cSettings: [.define("YAML_DECLARE_STATIC")]),
        .target(
            name: "RestMapSchema",
            dependencies: ["CLibYAML"],
            swiftSettings: strictSettings
        ),
        .target(name: "CRestMapPluginABI"),
        .target(name: "RestMapPluginKit", dependencies: ["CRestMapPluginABI", "RestMapJSON"], swiftSettings: strictSettings),
        .target(name: "RestMapPlugins", dependencies: ["RestMapPluginKit"], swiftSettings: strictSettings),
        .target(
            name: "RestMapPluginLoader",
            dependencies: ["RestMapPlugins", "RestMapPluginKit", "CRestMapPluginABI"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMap",
            dependencies: ["RestMapSchema", "RestMapJSON", "RestMapPluginKit", "RestMapPlugins"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMapClient",
            dependencies: [
                "RestMap",
                "RestMapSchema",
                "RestMapPluginKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(name: "CRestMapSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "RestMapSync",
            dependencies: ["RestMap", "RestMapSchema", "RestMapClient", "RestMapStore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMapStore",
            dependencies: ["RestMap", "RestMapSchema", "RestMapJSON", "CRestMapSQLite", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMapStorePostgres",
            dependencies: [
                "RestMapStore",
                "RestMap",
                "RestMapSchema",
                "RestMapJSON",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The system zlib (zlib1g-dev): the sample server's gzip bodies.
        .systemLibrary(name: "CZlib"),
        .executableTarget(
            name: "RestMapSampleServer",
            dependencies: [
                "RestMapJSON",
                "RestMapDates",
                "RestMapPluginKit",
                "CZlib",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMapAuthoring",
            dependencies: ["RestMap", "RestMapSchema", "RestMapJSON", "RestMapPluginKit", "RestMapPlugins", "RestMapPluginLoader"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMapLSP",
            dependencies: ["RestMap", "RestMapSchema", "RestMapJSON", "RestMapPluginKit", "RestMapPlugins", "RestMapPluginLoader", "RestMapAuthoring"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RestMapCLICore",
            dependencies: [
                "RestMap",
                "RestMapJSON",
                "RestMapPluginKit",
                "RestMapPlugins",
                "RestMapPluginLoader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "RestMapCLI",
            dependencies: [
                "RestMapCLICore",
                "RestMap",
                "RestMapSchema",
                "RestMapJSON",
                "RestMapPluginKit",
                "RestMapAuthoring",
                "RestMapLSP",
                "RestMapPlugins",
                "RestMapPluginLoader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "RestMapServicesCLI",
            dependencies: [
                "RestMapCLICore",
                "RestMap",
                "RestMapSchema",
                "RestMapJSON",
                "RestMapAuthoring",
                "RestMapClient",
                "RestMapStore",
                "RestMapStorePostgres",
                "RestMapSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),

        // First-party plugins: the transformers (static) and their loadable wrappers (dynamic).
        .target(name: "RestMapDates", dependencies: ["RestMapPluginKit", "RestMapPlugins", "RestMapPluginLoader"], path: "Plugins/Dates/Sources", swiftSettings: strictSettings),
        .target(name: "RestMapDatesCalendar", path: "Plugins/Dates/Calendar", swiftSettings: strictSettings),
        .target(name: "RestMapDatesPlugin", dependencies: ["RestMapDates", "RestMapPluginKit"], path: "Plugins/Dates/Export", swiftSettings: strictSettings),
        .target(name: "RestMapIDs", dependencies: ["RestMapPluginKit"], path: "Plugins/IDs/Sources", swiftSettings: strictSettings),
        .target(name: "RestMapIDsPlugin", dependencies: ["RestMapIDs", "RestMapPluginKit"], path: "Plugins/IDs/Export", swiftSettings: strictSettings),
        .target(name: "RestMapCSV", dependencies: ["RestMapPluginKit"], path: "Plugins/CSV/Sources", swiftSettings: strictSettings),
        .target(name: "RestMapCSVPlugin", dependencies: ["RestMapCSV", "RestMapPluginKit"], path: "Plugins/CSV/Export", swiftSettings: strictSettings),

        .target(name: "BenchmarkData", path: "Benchmarks/BenchmarkData", swiftSettings: strictSettings),
        .executableTarget(
            name: "RestMapBenchmarks",
            dependencies: ["RestMap", "RestMapSchema", "RestMapDates", "RestMapPlugins", "BenchmarkData"],
            path: "Benchmarks/RestMapBenchmarks",
            swiftSettings: strictSettings
        ),

        .executableTarget(name: "CodablePeer", dependencies: ["BenchmarkData"], path: "Benchmarks/CodablePeer", swiftSettings: strictSettings),

        .executableTarget(
            name: "ClientBenchmarks",
            path: "Benchmarks/ClientBenchmarks",
            exclude: ["peer.py", "repositories.yaml"],
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: ["RestMap", "RestMapSchema", "RestMapStore", "RestMapDates", "RestMapPlugins", "BenchmarkData"],
            path: "Benchmarks/StoreBenchmarks",
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "PostgresStoreBenchmarks",
            dependencies: ["RestMap", "RestMapSchema", "RestMapStore", "RestMapStorePostgres", "RestMapDates", "RestMapPlugins", "BenchmarkData"],
            path: "Benchmarks/PostgresStoreBenchmarks",
            exclude: ["peer.py"],
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "PluginBenchmarks",
            dependencies: ["RestMapPlugins", "RestMapPluginLoader", "RestMapPluginKit", "RestMapDates"],
            path: "Benchmarks/PluginBenchmarks",
            swiftSettings: strictSettings
        ),

        .testTarget(name: "RestMapJSONTests", dependencies: ["RestMapJSON"], exclude: ["Fixtures"]),
        .testTarget(name: "RestMapSchemaTests", dependencies: ["RestMapSchema"], exclude: ["Fixtures"]),
        .testTarget(name: "RestMapPluginsTests", dependencies: ["RestMapPlugins", "RestMapPluginLoader", "RestMapPluginKit", "CRestMapPluginABI", "RestMapDates", "RestMapIDs", "RestMapCSV", "RestMap", "RestMapSchema", "RestMapTestSupport"]),
        .testTarget(name: "RestMapTests", dependencies: ["RestMap", "RestMapSchema", "RestMapJSON", "RestMapPluginKit", "RestMapPlugins", "RestMapPluginLoader", "RestMapDates", "RestMapIDs", "RestMapCSV"]),
        .testTarget(name: "RestMapCLITests", dependencies: ["RestMap", "RestMapCLICore", "RestMapTestSupport"]),
        .testTarget(name: "RestMapAuthoringTests", dependencies: ["RestMapAuthoring", "RestMap", "RestMapSchema", "RestMapPlugins", "RestMapPluginLoader"], exclude: ["Fixtures"]),
        .testTarget(name: "RestMapLSPTests", dependencies: ["RestMapJSON"]),
        // What the test targets share: running built programs and the sample server.
        .target(name: "RestMapTestSupport", path: "Tests/Support", swiftSettings: strictSettings),
        .testTarget(name: "RestMapClientTests", dependencies: [.product(name: "HTTPTypes", package: "swift-http-types"), "RestMapClient", "RestMap", "RestMapSchema", "RestMapPluginLoader", "RestMapTestSupport"]),
        .testTarget(name: "RestMapStoreTests", dependencies: ["RestMapStore", "RestMapStorePostgres", "RestMap", "RestMapSchema", "RestMapPluginLoader", "RestMapTestSupport"]),
        .testTarget(name: "RestMapSyncTests", dependencies: ["RestMapTestSupport"]),
        .testTarget(name: "RestMapSampleServerTests", dependencies: ["RestMapJSON", "RestMapTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

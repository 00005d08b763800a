import Foundation
import RestMapCSV
import RestMapDates
import RestMapIDs
import RestMapPluginLoader
import RestMapPlugins
import RestMapPluginKit
import Testing

@Suite struct LoadingTests {
    @Test func firstPartyPluginsLoadFromDisk() throws {
        let registry = BuiltPlugins.loaded
        #expect(registry.plugins.map(\.name) == ["dates", "ids", "csv"])
        #expect(registry.plugins.allSatisfy { $0.version == "1.0.0" && $0.path?.hasPrefix(BuiltPlugins.directory) == true })
        #expect(registry.transformerNames.contains("dates.parse"))
        let parse = try #require(registry.transformer(named: "dates.parse"))
        #expect(parse.arguments.map(\.name) == ["formats", "timeZone", "locale"])
        #expect(parse.arguments.first?.kind == .strings)
        let format = try #require(registry.transformer(named: "dates.format"))
        #expect(format.arguments.first?.isRequired == true)
        #expect(registry.bodyDecoder(forMediaType: "TEXT/CSV")?.arguments.map(\.name) == ["delimiter"])
    }

    @Test func loadByExplicitPath() throws {
        var registry = PluginRegistry()
        let info = try registry.load(path: BuiltPlugins.directory + "/librestmap-ids.so")
        #expect(info.name == "ids")
        #expect(try registry.transformer(named: "ids.integer")?.make([:]).transform(.string("7")) == .integer(7))
    }

    @Test func staticRegistrationMatchesLoaded() throws {
        var linked = PluginRegistry()
        try linked.register(DatesPlugin.self)
        try linked.register(IDsPlugin.self)
        try linked.register(CSVPlugin.self)
        #expect(linked.transformerNames == BuiltPlugins.loaded.transformerNames)
        let cases: [(String, Value, [String: Value])] = [
            ("dates.parse", .string("Wed, 13 Mar 2013 18:10:21 GMT"), [:]),
            ("dates.parse", .string("not a date"), [:]),
            ("dates.parse", .string("13.03.2013"), ["formats": .array([.string("dd.MM.yyyy")])]),
            ("dates.parse", .date(Date(timeIntervalSince1970: 5)), [:]),
            ("ids.oid", .object([Value.Member(key: "$oid", value: .string("507f1f77bcf86cd799439011"))]), [:]),
            ("ids.integer", .decimal(Decimal(string: "12")!), [:]),
            ("ids.string", .number(3.25), [:]),
            ("csv.number", .string("1,234.5"), [:]),
            ("csv.split", .string("a,b"), [:]),
            ("csv.join", .array([.string("a"), .bool(true)]), [:]),
            ("ids.lastPathComponent", .url(URL(string: "https://x.org/a/b")!), [:]),
            ("dates.parse", .null, ["timeZone": .integer(3)]),
        ]
        for (name, value, arguments) in cases {
            let viaLinked = Result { try transform(name, value, arguments: arguments, in: linked) }
            let viaLoaded = Result { try transform(name, value, arguments: arguments) }
            #expect(String(describing: viaLinked) == String(describing: viaLoaded), "\(name) \(value)")
            let backLinked = Result { try reverse(name, (try? viaLinked.get()) ?? value, arguments: arguments, in: linked) }
            let backLoaded = Result { try reverse(name, (try? viaLoaded.get()) ?? value, arguments: arguments) }
            #expect(String(describing: backLinked) == String(describing: backLoaded), "reverse \(name)")
        }
        let csv = Array("a,b\n1,\"2\"\"\"\n".utf8)
        #expect(try linked.bodyDecoder(forMediaType: "text/csv")?.decode(csv, [:])
            == BuiltPlugins.loaded.bodyDecoder(forMediaType: "text/csv")?.decode(csv, [:]))
    }

    @Test func valuesOfEveryKindCrossTheBoundary() throws {
        // csv.split passes arrays through unchanged, so it echoes nested values across the ABI.
        let nested = Value.array([
            .null, .bool(true), .integer(-7), .decimal(Decimal(string: "1.25")!), .string("é\"\n"),
            .object([Value.Member(key: "k", value: .array([.integer(1)]))]),
        ])
        #expect(try transform("csv.split", nested) == nested)
        #expect(try transform("ids.string", .decimal(Decimal(string: "12.50")!)) == .string("12.5"))
        #expect(try transform("ids.lastPathComponent", .url(URL(string: "https://x.org/a/b?c")!)) == .string("b"))
    }

    @Test func notFoundListsThePathsSearched() throws {
        let path = PluginSearchPath(["/nonexistent/a", "/nonexistent/b"])
        #expect(throws: PluginError.notFound(name: "nope", searched: ["/nonexistent/a", "/nonexistent/b"])) {
            var registry = PluginRegistry()
            try registry.load(named: "nope", searchPath: path)
        }
        #expect(PluginError.notFound(name: "nope", searched: ["/a", "/b"]).description
            == "plugin 'nope' not found: no librestmap-nope.so in /a, /b; the schema's folder and the current directory "
            + "are not searched: pass --plugin-path DIR (or set RESTMAP_PLUGIN_PATH) to add the folder holding it")
    }

    @Test func corruptedFileIsNotAPlugin() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("librestmap-broken.so").path
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: path))
        var registry = PluginRegistry()
        let error = #expect(throws: PluginError.self) {
            try registry.load(named: "broken", searchPath: PluginSearchPath([directory.path]))
        }
        guard case .notAPlugin(let failedPath, let reason)? = error else {
            Issue.record("expected notAPlugin, got \(String(describing: error))")
            return
        }
        #expect(failedPath == path)
        #expect(reason.contains(path), "dlerror text: \(reason)")
    }

    @Test func libraryWithoutEntrySymbolIsNotAPlugin() throws {
        let directory = try temporaryDirectory()
        let path = try compileSharedLibrary("int unrelated(void) { return 1; }\n", named: "librestmap-plain.so", in: directory)
        #expect(throws: PluginError.notAPlugin(path: path, reason: "it does not export restmap_plugin_entry_v1")) {
            try PluginLoader.load(path: path)
        }
    }

    @Test func abiVersionMismatch() throws {
        let directory = try temporaryDirectory()
        let source = """
            #include <stdint.h>
            struct future_descriptor { uint32_t abi_version; const char *name; };
            static const struct future_descriptor descriptor = { 99, "future" };
            const void *restmap_plugin_entry_v1(void) { return &descriptor; }
            """
        let path = try compileSharedLibrary(source, named: "librestmap-future.so", in: directory)
        #expect(throws: PluginError.abiMismatch(path: path, expected: 1, found: 99)) {
            var registry = PluginRegistry()
            try registry.load(named: "future", searchPath: PluginSearchPath([directory.path]))
        }
    }

    @Test func duplicateTransformerNames() throws {
        var registry = PluginRegistry()
        try registry.register(DatesPlugin.self)
        #expect(throws: PluginError.duplicateTransformer(name: "dates.parse", plugin: "dates")) {
            try registry.load(named: "dates", searchPath: BuiltPlugins.searchPath)
        }
        #expect(registry.plugins.count == 1)
    }

    @Test func throwingTransformerCarriesItsMessage() throws {
        let error = PluginError.transformerFailed(transformer: "ids.uuid", message: "'nope' is not a UUID")
        #expect(throws: error) { try transform("ids.uuid", .string("nope")) }
        #expect(error.description == "ids.uuid: 'nope' is not a UUID")
    }

    @Test func transformersWorkFromManyTasks() async throws {
        let parse = try #require(BuiltPlugins.loaded.transformer(named: "dates.parse")).make(["formats": .array([.string("dd.MM.yyyy")])])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for day in 1...28 {
                group.addTask { () throws -> Void in
                    for _ in 0..<50 {
                        let text = String(format: "%02d.03.2013", day)
                        let expected = Value.date(Date(timeIntervalSince1970: 1_362_096_000 + Double(day - 1) * 86_400))
                        #expect(try parse.transform(.string(text)) == expected)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

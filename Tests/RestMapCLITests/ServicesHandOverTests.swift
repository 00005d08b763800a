import Foundation
import RestMapTestSupport
import Testing

/// `restmap get`, `send`, `store`, `seed` and `sync` run in `restmap-services`, which `restmap`
/// hands the arguments over to: the same usage, help, streams and exit status as one program,
/// and a `restmap` that loads none of the HTTP client or the stores for its other commands.
@Suite("restmap hands its services commands over to restmap-services")
struct ServicesHandOverTests {
    static let servicesCommands = ["get", "send", "store", "seed", "sync"]

    @Test("restmap --help lists every services command with the summary its own help gives",
          arguments: servicesCommands)
    func listedWithTheirSummary(_ command: String) throws {
        let listing = try CLI.run(["--help"])
        #expect(listing.status == 0)
        let help = try CLI.run([command, "--help"])
        #expect(help.status == 0, "\(help.errors)")
        #expect(help.output.contains("USAGE: restmap \(command)"), "\(help.output)")
        // The overview's first words (help wraps lines at different places in the two listings).
        let overview = try #require(help.output.split(separator: "\n").first { $0.hasPrefix("OVERVIEW: ") })
        let firstWords = overview.dropFirst("OVERVIEW: ".count).split(separator: " ").prefix(4).joined(separator: " ")
        let listed = try #require(listing.output.split(separator: "\n").first { $0.hasPrefix("  \(command) ") },
                                  "restmap --help does not list \(command)")
        #expect(listed.contains(firstWords), "\(listed) / \(overview)")
    }

    @Test("Options, help of a subcommand and usage errors come from the command itself")
    func helpAndUsageErrors() throws {
        let get = try CLI.run(["get", "--help"])
        #expect(get.output.contains("--base-url"))
        let importHelp = try CLI.run(["help", "store", "import"])
        #expect(importHelp.status == 0)
        #expect(importHelp.output.contains("USAGE: restmap store import"), "\(importHelp.output)")
        let missing = try CLI.run(["get"])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("Missing expected argument '--schema <schema>'"), "\(missing.errors)")
        #expect(missing.errors.contains("Usage: restmap get"), "\(missing.errors)")
    }

    @Test("Standard input, output and the exit status pass through: a body imported from standard input is queried back")
    func streamsAndStatusPassThrough() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-handover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("tasks.sqlite").path
        let body = try Data(contentsOf: CLI.repository.appendingPathComponent("Samples/tasks/task_list.json"))
        let imported = try CLI.run(["store", "import", "--schema", "Schemas/tasks.yaml", "--db", database, "--path", "/task_list", "-"],
                                   input: body)
        #expect(imported.status == 0, "\(imported.errors)")
        let query = try CLI.run(["store", "query", "--schema", "Schemas/tasks.yaml", "--db", database, "Project"])
        #expect(query.status == 0, "\(query.errors)")
        #expect(query.output.contains("\"name\":\"Produce RestKit Sample Code\""), "\(query.output)")
        let unknown = try CLI.run(["store", "query", "--schema", "Schemas/tasks.yaml", "--db", database, "NoSuchEntity"])
        #expect(unknown.status == 1, "\(unknown.output) \(unknown.errors)")
    }

    @Test("A restmap without restmap-services beside it says so for those commands and still maps")
    func missingServicesExecutable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = folder.appendingPathComponent("restmap")
        try FileManager.default.copyItem(at: try TestPaths.built("restmap"), to: alone)
        let get = try ChildProcess.run(alone, ["get", "--schema", "Schemas/tasks.yaml", "/task_list"])
        #expect(get.status == 1)
        #expect(get.output.isEmpty)
        #expect(get.errors.contains("restmap get: restmap-services, which runs it, could not be started from \(folder.path)"), "\(get.errors)")
        let map = try ChildProcess.run(alone, ["map", "--schema", "Schemas/tasks.yaml", "--path", "/task_list", "Samples/tasks/task_list.json"])
        #expect(map.status == 0, "\(map.errors)")
        #expect(map.output.contains("\"$entity\":\"Project\""))
    }

    @Test("restmap links none of the HTTP client, TLS or the stores; restmap-services does")
    func restmapLinksNoServicesStack() throws {
        let restmap = try Data(contentsOf: try TestPaths.built("restmap"), options: .alwaysMapped)
        let services = try Data(contentsOf: try TestPaths.built("restmap-services"), options: .alwaysMapped)
        // Swift symbol names of the packages' modules, as mangled names spell them.
        for module in ["7NIOCore", "15AsyncHTTPClient", "11PostgresNIO", "4GRDB", "6NIOSSL"] {
            #expect(restmap.range(of: Data(module.utf8)) == nil, "restmap contains \(module) symbols")
            #expect(services.range(of: Data(module.utf8)) != nil, "restmap-services lacks \(module) symbols")
        }
    }

    @Test("restmap loads Foundation's essentials only: not Foundation itself, its ICU part or ICU")
    func restmapNeedsNoFoundation() throws {
        func needed(_ executable: String) throws -> [String] {
            let dynamic = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/readelf"), ["-d", try TestPaths.built(executable).path])
            return dynamic.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
                .compactMap { line in line.split(separator: "[").last?.split(separator: "]").first.map(String.init) }
        }
        let restmap = try needed("restmap")
        #expect(restmap.contains("libFoundationEssentials.so"), "\(restmap)")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!restmap.contains(library), "restmap needs \(library)")
        }
        #expect(try needed("restmap-services").contains("libFoundation.so"))
    }
}

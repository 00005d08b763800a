import ArgumentParser
import Foundation
import RestMapAuthoring
import RestMap
import RestMapStore

/// `restmap seed`: builds a store from JSON files (RestKit's RKManagedObjectSeeder).
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Build a SQLite store from JSON files, reproducibly.",
        discussion: """
            Each FILE is mapped as the body of a successful GET of PATH (default '/') and saved, in the order \
            given, one transaction per file. The output file is replaced; the same schema and files give the \
            same bytes. Prints one summary line per file and the record count per entity.
            """)

    @Option(name: .long, help: "The schema file.")
    var schema: String

    @Option(name: .long, help: ArgumentHelp("The SQLite database to build (replaced when it exists).", valueName: "file"))
    var db: String

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var threads: JobsOption

    @Argument(help: ArgumentHelp("A JSON file, optionally with the GET path it answers.", valueName: "FILE[:PATH]"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one FILE[:PATH]") }
    }

    func run() async throws {
        let mapper = try plugins.mapper(for: schema)
        let inputs = files.map(Self.split)
        let bodies = try inputs.map { try CommandInput.read($0.file) }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: db + suffix) {
            try StoreFailure.report { try FileManager.default.removeItem(atPath: db + suffix) }
        }
        let store = try StoreFailure.report { try RecordStore(path: db, mapper: mapper) }
        defer { try? store.close() }
        var failed = false
        for (input, body) in zip(inputs, bodies) {
            let headers = BodyMediaType.implied(byExtensionOf: input.file).map { ["Content-Type": $0] } ?? [:]
            let response = Response(path: input.path, headers: headers, body: body)
            let (result, summary) = try await StoreFailure.report { try await store.importResponse(response, options: MappingOptions(jobs: threads.jobs)) }
            Terminal.out("\(input.file): \(summary)\n")
            for error in result.errors { Terminal.error("restmap: \(input.file): record failed: \(error)\n") }
            failed = failed || !result.errors.isEmpty
        }
        try await StoreFailure.report { try await store.compact() }
        for (entity, count) in try await StoreFailure.report({ try await store.counts() }) {
            Terminal.out("\(entity): \(count)\n")
        }
        if failed { throw ExitCode.failure }
    }

    /// `file.json:/path` → (file.json, /path); a file alone answers `/`.
    static func split(_ argument: String) -> (file: String, path: String) {
        guard let colon = argument.range(of: ":/", options: .backwards) else { return (argument, "/") }
        return (String(argument[..<colon.lowerBound]), String(argument[argument.index(after: colon.lowerBound)...]))
    }
}

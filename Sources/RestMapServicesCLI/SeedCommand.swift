import ArgumentParser
import Foundation
import RestMapAuthoring
import RestMap
import RestMapCLICore
import RestMapStore
import RestMapStorePostgres

/// `restmap seed`: builds a store from JSON files (RestKit's RKManagedObjectSeeder).
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: ServicesCommand.seed.abstract,
        discussion: """
            Each FILE is mapped as the body of a successful GET of PATH (default '/') and saved, in the order \
            given, one transaction per file. The store is built under a temporary name beside the output and \
            replaces it only when every file was saved: when a record fails to map nothing is written and an \
            existing file is left as it was. The output is one self-contained file (no -wal or -shm); the same \
            schema and files give the same bytes. Prints one summary line per file and the record count per entity.

            Example:
              restmap seed --schema Schemas/mongohq.yaml --db mongohq.sqlite \\
                Samples/mongohq/databases.json:/databases
            """)

    @Option(name: .long, help: "The schema file.")
    var schema: String

    @Option(name: .long, help: ArgumentHelp("The SQLite database to build, or a postgres:// URL (the store is replaced when it exists).", valueName: "file-or-url"))
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
        // Every file must open before anything is built; each is read as it is saved.
        for input in inputs {
            let descriptor = try CommandInput.open(input.file)
            if descriptor != 0 { close(descriptor) }
        }
        if PostgresLocation.isURL(db) { return try await seedPostgres(mapper, inputs) }
        // Built beside the output under a temporary name and renamed over it only when every
        // file was saved: a failed seed leaves no new file and the existing one untouched.
        let output = URL(fileURLWithPath: db)
        let building = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).seeding-\(ProcessInfo.processInfo.processIdentifier)").path
        let suffixes = ["", "-wal", "-shm", "-journal"]
        func remove(_ file: String) {
            for suffix in suffixes { try? FileManager.default.removeItem(atPath: file + suffix) }
        }
        remove(building)
        var failures: [String] = []
        var counts: [(entity: String, count: Int)] = []
        do {
            let store = try StoreFailure.report { try RecordStore(path: building, mapper: mapper) }
            defer { try? store.close() }
            (failures, counts) = try await fill(store, inputs)
        } catch {
            remove(building)
            Terminal.error("restmap: \(db) was not written\n")
            throw error
        }
        guard failures.isEmpty else {
            remove(building)
            Terminal.error("restmap: \(db) was not written: \(failures.joined(separator: "; "))\n")
            throw ExitCode.failure
        }
        // Journal files of an earlier store would be applied to the new one: they go first.
        for suffix in suffixes.dropFirst() { try? FileManager.default.removeItem(atPath: db + suffix) }
        try StoreFailure.report {
            guard rename(building, db) == 0 else {
                let reason = String(cString: strerror(errno))
                remove(building)
                throw StoreError("\(db): cannot replace it with the seeded store: \(reason)")
            }
        }
        for (entity, count) in counts { Terminal.out("\(entity): \(count)\n") }
    }

    /// Saves every body in the store, then (when every record mapped) compacts it: what failed to
    /// map, and the records per entity.
    private func fill(_ store: RecordStore, _ inputs: [(file: String, path: String)]) async throws
        -> (failures: [String], counts: [(entity: String, count: Int)]) {
        var failures: [String] = []
        for input in inputs {
            let headers = BodyMediaType.implied(byExtensionOf: input.file).map { ["Content-Type": $0] } ?? [:]
            let response = Response(path: input.path, headers: headers, body: [])
            let (result, summary) = try await BodyImport.save(input.file, as: response, in: store, options: MappingOptions(jobs: threads.jobs))
            Terminal.out("\(input.file): \(summary)\n")
            for error in result.errors { Terminal.error("restmap: \(input.file): record failed: \(error)\n") }
            if !result.errors.isEmpty { failures.append("\(input.file): \(result.errors.count) record(s) failed to map") }
        }
        let counts = try await StoreFailure.report { try await store.counts() }
        if failures.isEmpty { try await StoreFailure.report { try await store.compact() } }
        return (failures, counts)
    }

    /// Seeds a PostgreSQL store: built in a namespace of its own that replaces the store's only
    /// when every file was saved (`RecordStore.seed(postgres:)`).
    private func seedPostgres(_ mapper: Mapper, _ inputs: [(file: String, path: String)]) async throws {
        let name = (try? PostgresLocation(url: db).description) ?? "the PostgreSQL store"
        var outcome: (failures: [String], counts: [(entity: String, count: Int)]) = ([], [])
        struct Unsaved: Error {}
        do {
            try await RecordStore.seed(postgres: db, mapper: mapper) { store in
                outcome = try await fill(store, inputs)
                if !outcome.failures.isEmpty { throw Unsaved() }
            }
        } catch is Unsaved {
            Terminal.error("restmap: \(name) was not written: \(outcome.failures.joined(separator: "; "))\n")
            throw ExitCode.failure
        } catch let error as ExitCode {
            Terminal.error("restmap: \(name) was not written\n")
            throw error
        } catch {
            Terminal.error("restmap: \(error)\nrestmap: \(name) was not written\n")
            throw ExitCode.failure
        }
        for (entity, count) in outcome.counts { Terminal.out("\(entity): \(count)\n") }
    }

    /// `file.json:/path` → (file.json, /path); a file alone answers `/`.
    static func split(_ argument: String) -> (file: String, path: String) {
        guard let colon = argument.range(of: ":/", options: .backwards) else { return (argument, "/") }
        return (String(argument[..<colon.lowerBound]), String(argument[argument.index(after: colon.lowerBound)...]))
    }
}

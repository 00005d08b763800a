import Foundation
import RestMapPluginLoader
import RestMapPlugins
import RestMapPluginKit
import Testing

/// Builds `Samples/ThirdPartyPlugin` — its own SwiftPM package depending only on RestMapPluginKit —
/// and loads the resulting `librestmap-text.so`, proving a plugin can live outside this repository.
@Suite(.timeLimit(.minutes(15)))
struct ThirdPartyPluginTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Builds the sample once per test run into a scratch folder kept per checkout, manifest and
    /// set of source files (so reruns are incremental, parallel checkouts do not collide, and a
    /// changed manifest or an added source file never meets a stale build plan), returning the
    /// folder holding the .so.
    static let builtDirectory: Result<String, BuildFailure> = {
        let package = repositoryRoot.appendingPathComponent("Samples/ThirdPartyPlugin").path
        let manifests = ["Package.swift", "Samples/ThirdPartyPlugin/Package.swift"]
            .map { (try? String(contentsOf: repositoryRoot.appendingPathComponent($0), encoding: .utf8)) ?? "" }
            .joined()
        let sources = (FileManager.default.enumerator(atPath: repositoryRoot.appendingPathComponent("Sources").path)?
            .compactMap { $0 as? String }.sorted() ?? []).joined(separator: "\n")
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("restmap-third-party-\(stableHash(repositoryRoot.path + manifests + sources))").path
        do {
            let result = try run(
                "/usr/bin/env", ["swift", "build", "--package-path", package, "--scratch-path", scratch],
                timeout: 900)
            guard result.status == 0 else {
                return .failure(BuildFailure(message: "swift build of \(package) failed (\(result.status)):\n\(result.output)"))
            }
            return .success(scratch + "/debug")
        } catch {
            return .failure(BuildFailure(message: "could not run swift build: \(error)"))
        }
    }()

    struct BuildFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// FNV-1a, stable across processes (unlike `Hasher`).
    static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    @Test func loadsByPath() throws {
        let directory = try Self.builtDirectory.get()
        var registry = PluginRegistry()
        let info = try registry.load(path: directory + "/librestmap-text.so")
        #expect(info.name == "text")
        #expect(info.version == "0.1.0")
        #expect(try transform("text.slug", .string("Héllo, Wörld! 2024"), in: registry) == .string("hello-world-2024"))
        #expect(try transform("text.reverse", .string("abc"), in: registry) == .string("cba"))
        #expect(try reverse("text.reverse", .string("abc"), in: registry) == .string("cba"))
        #expect(throws: PluginError.transformerFailed(transformer: "text.slug", message: "cannot slug a integer")) {
            try transform("text.slug", .integer(1), in: registry)
        }
    }

    @Test func loadsByNameThroughTheSearchPath() throws {
        let directory = try Self.builtDirectory.get()
        let searchPath = PluginSearchPath(
            schemaDirectory: nil, environment: ["RESTMAP_PLUGIN_PATH": "/nonexistent:\(directory)"],
            executableDirectory: BuiltPlugins.directory)
        var registry = try BuiltPlugins.registry()
        try registry.load(named: "text", searchPath: searchPath)
        #expect(try transform("text.slug", .string("RestMap Plugins"), arguments: ["separator": .string("_")], in: registry)
            == .string("restmap_plugins"))
        #expect(searchPath.candidates().map(\.name).contains("text"))
    }
}

/// `restmap` loads the sample plugin from a folder the user gave, and never from the schema's folder.
@Suite(.timeLimit(.minutes(15)))
struct ThirdPartyPluginCommandTests {
    @Test func loadsOnlyFromAFolderTheUserGave() throws {
        let built = try ThirdPartyPluginTests.builtDirectory.get()
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = folder.appendingPathComponent("tags.yaml").path
        let sample = folder.appendingPathComponent("tags.json").path
        try """
            restmap: 1
            plugins: [text]
            entities:
              Tag:
                attributes:
                  slug: { from: name, transform: text.slug }
            responses:
              - { entity: Tag }
            """.write(toFile: schema, atomically: true, encoding: .utf8)
        try #"[{"name": "Héllo World"}]"#.write(toFile: sample, atomically: true, encoding: .utf8)
        let restmap = BuiltPlugins.directory + "/restmap"

        let trusted = try run(restmap, ["map", "--plugin-path", built, "--schema", schema, sample], timeout: 120)
        #expect(trusted.status == 0, "\(trusted.output)")
        #expect(trusted.output == #"[{"$entity":"Tag","slug":"hello-world"}]"# + "\n")

        // The same library beside the schema is not searched: the error says how to trust it.
        try FileManager.default.copyItem(atPath: built + "/librestmap-text.so", toPath: folder.path + "/librestmap-text.so")
        let beside = try run(restmap, ["validate", schema], timeout: 120)
        #expect(beside.status == 1)
        #expect(beside.output.contains("\(schema):2:11: error: cannot load plugin 'text': plugin 'text' not found"), "\(beside.output)")
        #expect(beside.output.contains("found \(folder.path)/librestmap-text.so, in a folder that is not searched: "
            + "pass --plugin-path \(folder.path) to trust it"), "\(beside.output)")
    }
}

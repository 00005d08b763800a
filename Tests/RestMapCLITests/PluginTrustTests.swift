import Foundation
import Testing

/// Opening a schema never runs code from its folder or the current directory (issue 13): a
/// library whose constructor writes a marker file lies beside the schema and in the current
/// directory, as the first-party `librestmap-dates.so` and a third-party `librestmap-geo.so`.
@Suite("Plugin trust")
struct PluginTrustTests {
    static let event = """
        entities:
          Event:
            attributes:
              name: name
              at: { from: at, type: date }
        responses:
          - { entity: Event }
        """

    /// A scratch folder with `evil/` (two schemas, a sample, both hostile libraries), `cwd/` (both
    /// libraries again) and the marker path the libraries' constructor would create.
    struct Scene {
        var root: URL
        var evil: URL { root.appendingPathComponent("evil") }
        var cwd: URL { root.appendingPathComponent("cwd") }
        var marker: URL { root.appendingPathComponent("marker") }
        var markerExists: Bool { FileManager.default.fileExists(atPath: marker.path) }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-trust-\(UUID().uuidString)")
            for folder in [evil, cwd] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let library = try PluginTrustTests.compileSharedLibrary("""
                #include <stdio.h>
                __attribute__((constructor)) static void hostile(void) {
                    FILE *file = fopen("\(marker.path)", "a");
                    if (file) { fputs("constructor ran\\n", file); fclose(file); }
                }
                """, in: root)
            for folder in [evil, cwd] {
                for name in ["librestmap-dates.so", "librestmap-geo.so"] {
                    try FileManager.default.copyItem(atPath: library, toPath: folder.appendingPathComponent(name).path)
                }
            }
            try "restmap: 1\nplugins: [dates]\n\(PluginTrustTests.event)\n"
                .write(to: evil.appendingPathComponent("schema.yaml"), atomically: true, encoding: .utf8)
            try "restmap: 1\nplugins: [dates, geo]\n\(PluginTrustTests.event)\n"
                .write(to: evil.appendingPathComponent("geo.yaml"), atomically: true, encoding: .utf8)
            try #"[{"name": "launch", "at": "Wed, 13 Mar 2013 18:10:21 GMT"}]"#
                .write(to: evil.appendingPathComponent("sample.json"), atomically: true, encoding: .utf8)
        }

        func restmap(_ arguments: [String]) throws -> CLI.Run { try CLI.run(arguments, in: cwd) }
    }

    static let firstPartyReason = "'dates' is a first-party plugin, taken only from the restmap binary's folder or the installed plugin folder"

    @Test("validate, validate --sample and map never run a library beside the schema or in the current directory")
    func noCodeFromTheSchemaFolder() throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(at: scene.root) }
        let schema = scene.evil.appendingPathComponent("schema.yaml").path
        let sample = scene.evil.appendingPathComponent("sample.json").path
        let ignored = [scene.cwd, scene.evil].map {
            "\(schema):2:11: warning: ignored \($0.path)/librestmap-dates.so: \(Self.firstPartyReason)\n"
        }.joined()

        let validate = try scene.restmap(["validate", schema])
        #expect(validate.status == 0, "\(validate.output)\(validate.errors)")
        #expect(validate.output == ignored)

        let dryRun = try scene.restmap(["validate", "--sample", sample, schema])
        #expect(dryRun.status == 0, "\(dryRun.output)\(dryRun.errors)")
        #expect(dryRun.output == ignored)

        // The first-party dates plugin, from the binary's folder, still parses the RFC 1123 date.
        let map = try scene.restmap(["map", "--schema", schema, sample])
        #expect(map.status == 0, "\(map.errors)")
        #expect(map.output == #"[{"$entity":"Event","name":"launch","at":"2013-03-13T18:10:21Z"}]"# + "\n")
        #expect(map.errors == ignored)

        // Trusting the folder does not let a library take a first-party name either.
        let trusted = try scene.restmap(["validate", "--plugin-path", scene.evil.path, schema])
        #expect(trusted.status == 0, "\(trusted.output)\(trusted.errors)")
        #expect(trusted.output.contains("warning: ignored \(scene.evil.path)/librestmap-dates.so: \(Self.firstPartyReason)"))

        let listed = try scene.restmap(["plugins", "--schema", schema])
        #expect(listed.status == 0, "\(listed.errors)")
        #expect(listed.output.contains("dates 1.0.0  "), "\(listed.output)")
        #expect(listed.output.contains(
            "geo  (not loaded)  \(scene.evil.path)/librestmap-geo.so\n  \(scene.evil.path) is not searched for plugins: "
            + "pass --plugin-path \(scene.evil.path) to trust it\n"), "\(listed.output)")
        #expect(listed.output.contains("dates  (not loaded)  \(scene.cwd.path)/librestmap-dates.so\n  \(Self.firstPartyReason)\n"))

        #expect(!scene.markerExists, "a library's constructor ran")
    }

    @Test("An editor session of restmap lsp that opens the schema runs no library beside it or in the workspace")
    func languageServerRunsNoCodeFromTheWorkspace() throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(at: scene.root) }
        let schema = scene.evil.appendingPathComponent("geo.yaml")
        let text = try String(contentsOf: schema, encoding: .utf8)
        func frame(_ message: [String: Any]) throws -> Data {
            let body = try JSONSerialization.data(withJSONObject: message)
            return Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        }
        var input = Data()
        input += try frame(["jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": ["processId": NSNull(), "rootUri": scene.evil.absoluteString, "capabilities": [:] as [String: Any],
                                       "workspaceFolders": [["uri": scene.evil.absoluteString, "name": "evil"]]]])
        input += try frame(["jsonrpc": "2.0", "method": "initialized", "params": [:] as [String: Any]])
        input += try frame(["jsonrpc": "2.0", "method": "textDocument/didOpen", "params": ["textDocument": [
            "uri": schema.absoluteString, "languageId": "yaml", "version": 1, "text": text]]])
        input += try frame(["jsonrpc": "2.0", "id": 2, "method": "textDocument/completion",
                            "params": ["textDocument": ["uri": schema.absoluteString], "position": ["line": 7, "character": 40]]])
        input += try frame(["jsonrpc": "2.0", "id": 3, "method": "shutdown"])
        input += try frame(["jsonrpc": "2.0", "method": "exit"])

        let session = try CLI.run(["lsp"], in: scene.cwd, input: input)
        #expect(session.status == 0, "\(session.errors)")
        // The diagnostics name why 'geo' has no plugin: the workspace is not a plugin folder.
        #expect(session.output.contains("publishDiagnostics"), "\(session.output)")
        #expect(session.output.contains("geo"), "\(session.output)")
        #expect(!scene.markerExists, "a library's constructor ran")
    }

    @Test("A third-party plugin found only beside the schema is not found, naming the option that trusts it")
    func thirdPartyBesideTheSchema() throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(at: scene.root) }
        let schema = scene.evil.appendingPathComponent("geo.yaml").path
        let notFound = "\(schema):2:18: error: cannot load plugin 'geo': plugin 'geo' not found: no librestmap-geo.so in "
        let hint = "; found \(scene.cwd.path)/librestmap-geo.so, \(scene.evil.path)/librestmap-geo.so, in a folder that is not "
            + "searched: pass --plugin-path \(scene.cwd.path) or --plugin-path \(scene.evil.path) to trust it\n"

        let validate = try scene.restmap(["validate", schema])
        #expect(validate.status == 1)
        #expect(validate.output.contains(notFound), "\(validate.output)")
        #expect(validate.output.contains(hint), "\(validate.output)")

        let map = try scene.restmap(["map", "--schema", schema, scene.evil.appendingPathComponent("sample.json").path])
        #expect(map.status == 1)
        #expect(map.output.isEmpty)
        #expect(map.errors.contains(notFound) && map.errors.contains(hint), "\(map.errors)")
        #expect(!scene.markerExists, "a library's constructor ran")

        // The control: the folder the user names is trusted, so the library is opened and its constructor runs.
        let trusted = try scene.restmap(["validate", "--plugin-path", scene.evil.path, schema])
        #expect(trusted.status == 1)
        #expect(trusted.output.contains(
            "cannot load plugin 'geo': \(scene.evil.path)/librestmap-geo.so is not a RestMap plugin: it does not export restmap_plugin_entry_v1"),
            "\(trusted.output)")
        #expect(scene.markerExists)
    }

    @Test("A plugin others can write is refused before it is opened, with the reason")
    func writableByOthers() throws {
        let scene = try Scene()
        defer { try? FileManager.default.removeItem(at: scene.root) }
        let schema = scene.evil.appendingPathComponent("geo.yaml").path
        let library = scene.evil.appendingPathComponent("librestmap-geo.so").path
        for (mode, who) in [(0o775, "its group"), (0o757, "everyone")] {
            #expect(chmod(library, mode_t(mode)) == 0)
            let run = try scene.restmap(["validate", "--plugin-path", scene.evil.path, schema])
            #expect(run.status == 1)
            let errors = run.output.split(separator: "\n").filter { $0.contains(": error: ") }.map { $0 + "\n" }
            #expect(errors == ["\(schema):2:18: error: cannot load plugin 'geo': refused to load \(library): \(library) is "
                + "writable by \(who) and only its owner may write a plugin (chmod go-w \(library))\n"])
        }
        #expect(chmod(library, 0o755) == 0)
        #expect(chmod(scene.evil.path, 0o777) == 0)
        let run = try scene.restmap(["map", "--plugin-path", scene.evil.path, "--schema", schema, "-"])
        #expect(run.status == 1)
        #expect(run.errors.contains("refused to load \(library): its folder \(scene.evil.path) is writable by everyone without the sticky bit"),
                "\(run.errors)")
        #expect(!scene.markerExists, "a library's constructor ran")
    }

    @Test("A plugin name that is not an identifier is an error at its position")
    func pluginNamePositions() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "restmap: 1\nplugins: [dates, \"../../x\", a/b]\n\(Self.event)\n"
            .write(to: folder.appendingPathComponent("flow.yaml"), atomically: true, encoding: .utf8)
        try "restmap: 1\nplugins:\n  - dates\n  - \"x y\"\n  - ok_name-2\n\(Self.event)\n"
            .write(to: folder.appendingPathComponent("block.yaml"), atomically: true, encoding: .utf8)
        let run = try CLI.run(["validate", "flow.yaml", "block.yaml"], in: folder)
        #expect(run.status == 1)
        let lines = run.output.split(separator: "\n").map(String.init)
        let rule = "is not a plugin name: use letters, digits, '-' and '_'"
        #expect(lines.count == 4, "\(run.output)")
        #expect(lines.first == "flow.yaml:2:19: error: '../../x' \(rule)")
        #expect(lines.dropFirst().first == "flow.yaml:2:29: error: 'a/b' \(rule)")
        #expect(lines.dropFirst(2).first == "block.yaml:4:6: error: 'x y' \(rule)")
        #expect(lines.last?.hasPrefix("block.yaml:5:5: error: cannot load plugin 'ok_name-2': plugin 'ok_name-2' not found") == true)
    }

    /// Compiles C source into `libhostile.so` in `directory` with `cc -shared -fPIC`.
    static func compileSharedLibrary(_ source: String, in directory: URL) throws -> String {
        let sourceFile = directory.appendingPathComponent("hostile.c")
        try source.write(to: sourceFile, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("libhostile.so").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cc", "-shared", "-fPIC", "-o", output, sourceFile.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cc failed")
        return output
    }
}

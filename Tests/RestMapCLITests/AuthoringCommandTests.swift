import Foundation
import Testing

/// Runs the built binary: `restmap test`, `restmap init`, usage errors and help of every command.
@Suite("restmap test, restmap init, usage and help")
struct AuthoringCommandTests {
    @Test("The shipped schema tests pass and print one PASS line per case")
    func shippedTests() throws {
        let run = try CLI.run(["test", "Schemas/tests/*.yaml"])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.split(separator: "\n").allSatisfy { $0.hasPrefix("PASS Schemas/tests/") })
        let files = try FileManager.default.contentsOfDirectory(atPath: CLI.repository.appendingPathComponent("Schemas/tests").path)
            .filter { $0.hasSuffix(".yaml") }
        #expect(files.count >= 9)
        #expect(run.errors.hasSuffix("0 failed in \(files.count) files\n"), "\(run.errors)")
    }

    @Test("A failing expectation prints FILE:LINE:COLUMN with expected and actual, and exits 1; junit too")
    func failingTest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
            restmapTest: 1
            schema: \(CLI.repository.path)/Schemas/tasks.yaml
            cases:
              - name: wrong count
                method: POST
                path: /tasks
                body: { id: 1, name: x }
                expect:
                  counts: { Task: 2 }
            """.write(to: directory.appendingPathComponent("t.yaml"), atomically: true, encoding: .utf8)
        let run = try CLI.run(["test", "t.yaml"], in: directory)
        #expect(run.status == 1)
        #expect(run.output == "FAIL t.yaml:4:5 wrong count\n  t.yaml:9:17: error: records of Task: expected 2, found 1\n")
        #expect(run.errors == "1 case, 1 failed in 1 file\n")
        let junit = try CLI.run(["test", "--format", "junit", "t.yaml"], in: directory)
        #expect(junit.status == 1)
        #expect(junit.output.contains(#"<testcase name="wrong count" classname="t.yaml:4:5">"#))
    }

    @Test("init drafts a schema that validate accepts and that maps its sample with no unmapped keys")
    func initDraft() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = CLI.repository.appendingPathComponent("Samples/github/starred.json").path
        let run = try CLI.run(["init", "--path", "/users/:login/starred", "--name", "github", "--base-url", "https://api.github.com", sample])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("name: github\nbaseURL: https://api.github.com\nplugins: [dates]"))
        #expect(run.output.contains("owner: { entity: Owner }"))
        let schema = directory.appendingPathComponent("starred.yaml")
        try run.output.write(to: schema, atomically: true, encoding: .utf8)
        let check = try CLI.run(["validate", schema.path, "--sample", sample, "--path", "/users/octocat/starred"])
        #expect(check.status == 0)
        #expect(check.output.isEmpty, "\(check.output)")
        #expect(check.errors == "0 errors, 0 warnings in 1 file\n")
    }

    @Test("Usage problems of every subcommand exit 2, not 64", arguments: [
        ["map"], ["map", "--schema", "x.yaml", "--nope"], ["test"], ["test", "--format", "xml", "a.yaml"], ["init"],
        ["init", "--path", "users", "a.json"], ["lsp", "--stdio-nope"], ["schema"], ["plugins", "--nope"], ["validate"], ["nope"],
    ])
    func usage(_ arguments: [String]) throws {
        let run = try CLI.run(arguments)
        #expect(run.status == 2, "\(arguments): \(run.errors)")
        #expect(run.errors.contains("Usage:") || run.errors.contains("Error:"))
    }

    @Test("help shows an example for the tool and for each subcommand", arguments: [
        ["help"], ["help", "validate"], ["help", "map"], ["help", "test"], ["help", "init"], ["help", "lsp"], ["help", "schema"], ["help", "plugins"],
    ])
    func help(_ arguments: [String]) throws {
        let run = try CLI.run(arguments)
        #expect(run.status == 0)
        #expect(run.output.contains("Example"), "\(run.output)")
        #expect(run.output.contains("restmap "))
    }
}

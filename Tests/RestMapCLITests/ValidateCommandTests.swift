import Foundation
import Testing

/// Runs the built `restmap` binary: `validate` and `schema --json-schema`.
@Suite("restmap validate and restmap schema")
struct ValidateCommandTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("Tests/RestMapSchemaTests/Fixtures")

    typealias Run = CLI.Run

    static func restmap(_ arguments: [String], in directory: URL = fixtures) throws -> Run {
        try CLI.run(arguments, in: directory)
    }

    @Test("A valid schema exits 0 and prints only the summary")
    func valid() throws {
        let run = try Self.restmap(["validate", "Valid/minimal.yaml"])
        #expect(run.status == 0)
        #expect(run.output.isEmpty)
        #expect(run.errors == "0 errors, 0 warnings in 1 file\n")
    }

    @Test("Warnings alone exit 0")
    func warningsOnly() throws {
        let run = try Self.restmap(["validate", "Broken/unused-entity.yaml"])
        #expect(run.status == 0)
        #expect(run.output == "Broken/unused-entity.yaml:6:3: warning: entity 'Orphan' is never used: no response, relationship, request or dynamic case refers to it\n")
        #expect(run.errors == "0 errors, 1 warning in 1 file\n")
    }

    @Test("An error exits 1 and prints FILE:LINE:COLUMN: error: MESSAGE")
    func error() throws {
        let run = try Self.restmap(["validate", "Broken/unknown-type.yaml"])
        #expect(run.status == 1)
        #expect(run.output == "Broken/unknown-type.yaml:7:29: error: 'integr' is not a valid value for 'type' (did you mean 'integer'?)\n")
        #expect(run.errors == "1 error, 0 warnings in 1 file\n")
    }

    @Test("Several files print every diagnostic, each file's sorted by position")
    func severalFiles() throws {
        let run = try Self.restmap(["validate", "Broken/missing-response-entity.yaml", "Valid/tasks.yaml", "Broken/unused-entity.yaml"])
        #expect(run.status == 1)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines == [
            "Broken/missing-response-entity.yaml:5:3: warning: entity 'User' is never used: no response, relationship, request or dynamic case refers to it",
            "Broken/missing-response-entity.yaml:10:5: error: response is missing required key 'entity'",
            "Broken/unused-entity.yaml:6:3: warning: entity 'Orphan' is never used: no response, relationship, request or dynamic case refers to it",
        ])
        #expect(run.errors == "1 error, 2 warnings in 3 files\n")
    }

    @Test("A quoted glob is expanded by restmap")
    func glob() throws {
        let run = try Self.restmap(["validate", "Valid/*.yaml"])
        #expect(run.status == 0)
        #expect(run.errors == "0 errors, 0 warnings in 2 files\n")
        let broken = try Self.restmap(["validate", "Broken/status-*.yaml"])
        #expect(broken.status == 1)
        #expect(broken.output.split(separator: "\n").map { $0.prefix { $0 != ":" } } == [
            "Broken/status-6xx.yaml", "Broken/status-99.yaml", "Broken/status-abc.yaml",
        ])
        #expect(broken.errors == "3 errors, 0 warnings in 3 files\n")
    }

    @Test("--format json prints the same diagnostics as a JSON array")
    func json() throws {
        let run = try Self.restmap(["validate", "--format", "json", "Broken/missing-response-entity.yaml", "Valid/minimal.yaml"])
        #expect(run.status == 1)
        let entries = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(entries.map { $0["file"] as? String } == Array(repeating: "Broken/missing-response-entity.yaml", count: 2))
        #expect(entries.map { $0["line"] as? Int } == [5, 10])
        #expect(entries.map { $0["column"] as? Int } == [3, 5])
        #expect(entries.map { $0["severity"] as? String } == ["warning", "error"])
        #expect(entries.last?["message"] as? String == "response is missing required key 'entity'")
        #expect(run.errors == "1 error, 1 warning in 2 files\n")
    }

    @Test("--format json of a clean file is an empty array")
    func jsonEmpty() throws {
        let run = try Self.restmap(["validate", "--format", "json", "Valid/paged.json"])
        #expect(run.status == 0)
        let entries = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [Any])
        #expect(entries.isEmpty)
    }

    @Test("Usage problems exit 2 with a message", arguments: [
        (["validate"], "no schema files given"),
        (["validate", "--strict", "Valid/minimal.yaml"], "unknown option '--strict'"),
        (["validate", "Nowhere/*.yaml"], "no file matches 'Nowhere/*.yaml'"),
    ])
    func usage(_ arguments: [String], message: String) throws {
        let run = try Self.restmap(arguments)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.hasPrefix("Error: \(message)\nUsage: restmap validate"))
    }

    @Test("A missing file or a directory is an error in that file, not a usage problem")
    func notAFile() throws {
        let run = try Self.restmap(["validate", "Valid/absent.yaml", "Broken"])
        #expect(run.status == 1)
        #expect(run.output == "Valid/absent.yaml:1:1: error: no such file\nBroken:1:1: error: is a directory, not a schema file\n")
    }

    @Test("schema --json-schema prints the committed Schemas/restmap.schema.json")
    func jsonSchema() throws {
        let run = try Self.restmap(["schema", "--json-schema"])
        #expect(run.status == 0)
        let committed = try String(contentsOf: Self.repository.appendingPathComponent("Schemas/restmap.schema.json"), encoding: .utf8)
        #expect(run.output == committed,
                "regenerate with `swift run restmap schema --json-schema > Schemas/restmap.schema.json`")
    }
}

import Foundation
import Testing

/// Runs the built `restmap map` on the sample payloads.
@Suite("restmap map")
struct MapCommandTests {
    func records(_ output: String) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
    }

    @Test("The README's first command maps the task list")
    func taskList() throws {
        let run = try CLI.run(["map", "--schema", "Schemas/tasks.yaml", "--path", "/task_list", "Samples/tasks/task_list.json"])
        #expect(run.status == 0, "\(run.errors)")
        let projects = try records(run.output)
        #expect(projects.map { $0["$entity"] as? String } == ["Project", "Project", "Project"])
        let tasks = projects.flatMap { $0["tasks"] as? [[String: Any]] ?? [] }
        #expect(tasks.count == 11)
        let first = try #require(tasks.first)
        #expect(Array(first.keys).contains("assignedUser"))
        #expect((first["assignedUser"] as? [String: Any])?["userID"] as? Int == first["assignedUserID"] as? Int)
    }

    /// The body is read while the schema loads: a schema error still comes first, and a body
    /// that cannot be read is reported by name once the schema is good.
    @Test("A missing body file is named; a bad schema is reported before it")
    func unreadableBody() throws {
        let missing = try CLI.run(["map", "--schema", "Schemas/tasks.yaml", "no-such-body.json"])
        #expect(missing.status == 2, "\(missing.status)")   // a usage error, as ArgumentParser exits for ValidationError
        #expect(missing.errors.contains("cannot read the body file 'no-such-body.json'"), "\(missing.errors)")
        #expect(missing.output.isEmpty)
        let both = try CLI.run(["map", "--schema", "no-such-schema.yaml", "no-such-body.json"])
        #expect(both.status == 1)
        #expect(both.errors.contains("no-such-schema.yaml:1:1: error: no such file"), "\(both.errors)")
        #expect(!both.errors.contains("no-such-body.json"))
    }

    @Test("Dates from the dates plugin print as ISO 8601 UTC")
    func stashboard() throws {
        let run = try CLI.run(["map", "--schema", "Schemas/stashboard.yaml", "--path", "/services", "--format", "ndjson",
                               "Samples/stashboard/services.json"])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix(#"{"$entity":"StatusItem","serviceID":"aaron","name":"Aaron""#) == true)
        #expect(lines.first?.contains(#""timestamp":"2013-03-13T18:10:21Z""#) == true)
    }

    @Test("Standard input, --param metadata and CSV output")
    func stdinParametersAndCSV() throws {
        let body = try Data(contentsOf: CLI.repository.appendingPathComponent("Samples/mongohq/collections.json"))
        let run = try CLI.run(["map", "--schema", "Schemas/mongohq.yaml", "--path", "/databases/Test/collections",
                               "--param", "databaseID=Test", "--format", "csv", "-"], input: body)
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\r\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("$entity,"))
        #expect(lines[1].hasPrefix("Collection,Test,movies,"))
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("Collection,Test,") })
    }

    @Test("A body larger than a pipe's buffer reads whole from standard input, as from its file")
    func largeStandardInput() throws {
        let items = (1...3000).map { #"{"id": \#($0), "name": "user \#($0) \#(String(repeating: "x", count: 40))"}"# }
        let body = Data(("[" + items.joined(separator: ",") + "]").utf8)
        #expect(body.count > 150_000)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-large-\(UUID().uuidString).json")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let piped = try CLI.run(["map", "--schema", "Schemas/edge-cases.yaml", "--path", "/users", "--format", "ndjson", "-"], input: body)
        let read = try CLI.run(["map", "--schema", "Schemas/edge-cases.yaml", "--path", "/users", "--format", "ndjson", file.path])
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(piped.output.split(separator: "\n").count == 3000)
        #expect(piped.output.split(separator: "\n").last?.contains(#""id":3000,"name":"user 3000 \#(String(repeating: "x", count: 40))""#) == true)
        #expect(piped.output == read.output)
    }

    @Test("A CSV body maps through the csv plugin with exact numbers")
    func csvBody() throws {
        let run = try CLI.run(["map", "--schema", "Schemas/imdb.yaml", "--path", "/top250.csv", "--format", "ndjson",
                               "Samples/imdb/top250.csv"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.split(separator: "\n").first == #"{"$entity":"Movie","rank":241,"rating":8,"title":"Mystic River (2003)","votes":234310}"#)
    }

    @Test("A failing record prints on standard error, the others still print, exit 1")
    func partialFailure() throws {
        let body = Data(#"[{"id": 1, "name": "ok"}, {"id": "x"}]"#.utf8)
        let run = try CLI.run(["map", "--schema", "Schemas/edge-cases.yaml", "--path", "/users", "-"], input: body)
        #expect(run.status == 1)
        #expect(try records(run.output).count == 1)
        #expect(run.errors.contains("[1].id: User.id: cannot convert string \"x\" to integer"))
    }

    @Test("A malformed body names the line and column")
    func malformedBody() throws {
        let run = try CLI.run(["map", "--schema", "Schemas/tasks.yaml", "--path", "/task_list", "-"], input: Data("[\n{\"a\": }]".utf8))
        #expect(run.status == 1)
        #expect(run.errors.contains("malformed JSON body at line 2, column 7"))
    }

    @Test("An error response prints the joined messages")
    func errorResponse() throws {
        let run = try CLI.run(["map", "--schema", "Schemas/edge-cases.yaml", "--method", "POST", "--path", "/users",
                               "--status", "422", "Samples/edge-cases/errors.json"])
        #expect(run.status == 1)
        #expect(run.errors == "restmap: error1, error2\n")
    }

    @Test("A schema with errors is refused with its diagnostics")
    func brokenSchema() throws {
        let run = try CLI.run(["map", "--schema", "Tests/RestMapSchemaTests/Fixtures/Broken/unknown-key-entity.yaml", "-"], input: Data("{}".utf8))
        #expect(run.status == 1)
        #expect(run.errors.contains("error:"))
    }
}

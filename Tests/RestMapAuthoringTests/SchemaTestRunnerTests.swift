import Foundation
@testable import RestMapAuthoring
import Testing

@Suite("restmap test: schema test files")
struct SchemaTestRunnerTests {
    static func run(_ text: String) throws -> SchemaTestFileResult {
        let file = try Repository.temporaryFile(text, name: "case.yaml")
        return SchemaTestRunner().run(file: file)
    }

    static var tasksSchema: String { Repository.path("Schemas/tasks.yaml") }

    @Test("Every shipped test file under Schemas/tests passes", arguments: try! FileManager.default
        .contentsOfDirectory(atPath: Repository.path("Schemas/tests")).filter { $0.hasSuffix(".yaml") }.sorted())
    func shipped(_ name: String) {
        let result = SchemaTestRunner().run(file: Repository.path("Schemas/tests/\(name)"))
        #expect(result.fileFailures.isEmpty, "\(result.fileFailures)")
        #expect(!result.cases.isEmpty)
        for testCase in result.cases {
            #expect(testCase.passed, "\(testCase.name): \(testCase.failures.map(\.description))")
        }
    }

    @Test("Every example schema in Schemas/ has a test file")
    func everySchemaTested() throws {
        let schemas = try FileManager.default.contentsOfDirectory(atPath: Repository.path("Schemas")).filter { $0.hasSuffix(".yaml") }
        let tests = Set(try FileManager.default.contentsOfDirectory(atPath: Repository.path("Schemas/tests")))
        for schema in schemas { #expect(tests.contains(schema), "Schemas/tests/\(schema) is missing") }
    }

    @Test("A failing attribute expectation is reported at its position with expected and actual values")
    func attributeFailure() throws {
        let result = try Self.run("""
            restmapTest: 1
            schema: \(Self.tasksSchema)
            cases:
              - name: wrong name
                method: POST
                path: /tasks
                status: 201
                body: { id: 12, name: Dry the cat, assigned_user_id: 3 }
                expect:
                  counts: { Task: 2 }
                  records:
                    - entity: Task
                      attributes: { taskID: 12, name: Wash the cat }
                      types: { taskID: decimal }
            """)
        #expect(result.fileFailures.isEmpty)
        let failures = try #require(result.cases.first).failures
        #expect(failures.map(\.location.line) == [10, 13, 14])
        #expect(failures.map(\.location.column) == [17, 37, 20])
        #expect(failures[0].detail == "records of Task: expected 2, found 1")
        #expect(failures[1].detail == #"Task[0].name: expected "Wash the cat", found "Dry the cat""#)
        #expect(failures[2].detail == "Task[0].taskID kind: expected decimal, found integer")
        #expect(failures[1].description.hasSuffix(#"case.yaml:13:37: error: Task[0].name: expected "Wash the cat", found "Dry the cat""#))
    }

    @Test("Relationship, record-error, failure and request expectations report what differs")
    func otherFailures() throws {
        let result = try Self.run("""
            restmapTest: 1
            schema: \(Self.tasksSchema)
            cases:
              - name: relationships
                path: /task_list
                bodyFile: \(Repository.path("Samples/tasks/task_list.json"))
                expect:
                  records:
                    - root: 0
                      relationships:
                        user: { attributes: { userID: 2 } }
                        tasks: { count: 3 }
              - name: unexpected record error
                method: POST
                path: /tasks
                body: { id: twelve }
                expect: {}
              - name: failure expected
                method: POST
                path: /tasks
                status: 422
                body: { errors: [a, b] }
                expect:
                  failure: { kind: errorResponse, messages: [a, c] }
              - name: request body
                method: POST
                path: /tasks
                body: { id: 1, name: x }
                expect:
                  requests:
                    - { entity: Task, bodyText: "task[name]=y" }
            """)
        let cases = result.cases
        #expect(cases.count == 4)
        #expect(cases[0].failures.map(\.detail) == ["root[0].user.userID: expected 2, found 1", "root[0].tasks: related records: expected 3, found 4"])
        #expect(cases[1].failures.count == 1)
        #expect(cases[1].failures.first?.detail.hasPrefix("unexpected record error: expected none, found id: Task.taskID") == true,
                "\(cases[1].failures)")
        #expect(cases[2].failures.map(\.detail) == [#"error messages: expected ["a", "c"], found ["a", "b"]"#])
        #expect(cases[3].failures.map(\.detail) == ["request body: expected task[name]=y, found task[name]=x"])
        #expect(cases[3].failures.first?.location.line == 31)
    }

    @Test("An inline schema keeps the test file's positions, and expected schema diagnostics are checked")
    func inlineSchema() throws {
        let result = try Self.run("""
            restmapTest: 1
            schema:
              restmap: 1
              entities:
                User: { attributes: { id: { from: id, type: integr } } }
              responses: [{ entity: User }]
            schemaDiagnostics:
              - { severity: error, line: 5, column: 49, messageContains: "did you mean 'integer'" }
            """)
        #expect(result.fileFailures.isEmpty, "\(result.fileFailures)")
        let unexpected = try Self.run("""
            restmapTest: 1
            schema: { restmap: 1, entities: { User: { attributes: [id] } }, responses: [{ entity: Usr }] }
            cases:
              - { name: maps, body: { id: 1 }, expect: { counts: { User: 1 } } }
            """)
        let failure = try #require(unexpected.cases.first?.failures.first)
        #expect(failure.location.line == 2)
        #expect(failure.message.contains("undefined entity 'Usr' (did you mean 'User'?)"))
    }

    @Test("The test file itself is checked against its grammar, with positions and suggestions")
    func grammar() throws {
        let result = try Self.run("""
            restmapTest: 1
            schema: x.yaml
            cases:
              - name: typo
                expcet: {}
            """)
        #expect(result.fileFailures.map(\.description.suffixAfterFile) == [
            "5:5: error: unknown key 'expcet' in case (did you mean 'expect'?)",
        ])
        #expect(result.cases.isEmpty)
        let empty = try Self.run("restmapTest: 1\nschema: x.yaml\n")
        #expect(empty.fileFailures.map(\.description.suffixAfterFile) == ["1:1: error: the test file has no cases and no schemaDiagnostics: it checks nothing"])
        let version = try Self.run("restmapTest: 2\nschema: x.yaml\ncases: [{ name: a, expect: {} }]\n")
        #expect(version.fileFailures.map(\.description.suffixAfterFile) == ["1:14: error: unsupported test-file version 2; this restmap reads version 1"])
    }

    @Test("JUnit output names files and cases and escapes messages")
    func junit() throws {
        let result = try Self.run("""
            restmapTest: 1
            schema: \(Self.tasksSchema)
            cases:
              - name: "a <fail> & more"
                divergence: RestKit would keep "x"
                method: POST
                path: /tasks
                body: { id: 1, name: x }
                expect: { roots: 2 }
            """)
        let xml = SchemaTestReport.junit([result])
        #expect(xml.contains(#"<testsuites name="restmap test" tests="1" failures="1">"#))
        #expect(xml.contains(#"<testcase name="a &lt;fail&gt; &amp; more""#))
        #expect(xml.contains(#"<failure message="root records: expected 2, found 1">"#))
        #expect(xml.contains("<system-out>divergence: RestKit would keep &quot;x&quot;</system-out>"))
        #expect(SchemaTestReport.summary([result]) == "1 case, 1 failed in 1 file")
    }
}

extension String {
    /// `LINE:COLUMN: …` of a `FILE:LINE:COLUMN: …` line.
    var suffixAfterFile: String {
        guard let range = range(of: ".yaml:") else { return self }
        return String(self[range.upperBound...])
    }
}

extension SchemaTestRunnerTests {
    @Test("A schema path that names no file is reported at the reference")
    func missingSchema() throws {
        let result = try Self.run("""
            restmapTest: 1
            schema: nowhere/api.yaml
            cases:
              - { name: any, body: {}, expect: {} }
            """)
        let failure = try #require(result.cases.first?.failures.first)
        #expect(failure.location.line == 2)
        #expect(failure.location.column == 9)
        #expect(failure.message.hasPrefix("no schema file at '"))
    }
}

extension SchemaTestRunnerTests {
    @Test("Each case may carry its own inline schema; --tag selects cases; metadata and params reach the mapping")
    func perCaseSchemasAndTags() throws {
        let text = """
            restmapTest: 1
            cases:
              - name: metadata and parameters
                tags: [metadata]
                divergence: none
                schema:
                  restmap: 1
                  entities:
                    Item: { attributes: { id: { from: id, type: integer }, tenant: "@metadata.user.tenant", db: "@metadata.routing.parameters.db" } }
                  responses: [{ path: /items, entity: Item }]
                path: /items
                params: { db: main }
                metadata: { tenant: acme }
                body: [{ id: 1 }]
                expect:
                  records: [{ entity: Item, attributes: { id: 1, tenant: acme, db: main } }]
              - name: another schema
                tags: [other]
                schema: { restmap: 1, entities: { Thing: { attributes: [name] } }, responses: [{ entity: Thing }] }
                body: { name: x }
                expect: { counts: { Thing: 1 }, records: [{ entity: Thing, attributes: { name: y } }] }
            """
        let file = try Repository.temporaryFile(text, name: "cases.yaml")
        let all = SchemaTestRunner().run(file: file)
        #expect(all.fileFailures.isEmpty, "\(all.fileFailures)")
        #expect(all.cases.map(\.passed) == [true, false], "\(all.cases.map(\.failures))")
        #expect(all.cases.last?.failures.map(\.detail) == [#"Thing[0].name: expected "y", found "x""#])
        let tagged = SchemaTestRunner(tags: ["metadata"]).run(file: file)
        #expect(tagged.cases.map(\.name) == ["metadata and parameters"])
        #expect(tagged.cases.first?.divergence == "none")
    }
}

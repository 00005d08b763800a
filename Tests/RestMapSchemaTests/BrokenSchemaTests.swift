import Foundation
import RestMapSchema
import Testing

/// The broken-schema corpus (`Fixtures/Broken`, one defect per file) and hostile inputs.
@Suite("Broken schemas")
struct BrokenSchemaTests {
    @Test("The corpus is large enough and every header parses")
    func corpus() {
        #expect(BrokenFixture.all.count >= 35)
        for fixture in BrokenFixture.all {
            #expect(fixture.line > 0, "\(fixture.name): first line must be '# expect: LINE:COLUMN error|warning: MESSAGE'")
        }
    }

    @Test("Each fixture reports its defect at the expected position", arguments: BrokenFixture.all)
    func fixture(_ fixture: BrokenFixture) {
        let diagnostics = Schema.validate(contentsOf: fixture.path).diagnostics
        let report = diagnostics.map { "\($0)" }.joined(separator: "\n")
        let matches = { (diagnostic: Diagnostic) in
            diagnostic.location.line == fixture.line && diagnostic.location.column == fixture.column
                && diagnostic.severity == fixture.severity && diagnostic.message.contains(fixture.message)
        }
        switch fixture.severity {
        case .error:
            // The defect is the first error: nothing before it is reported as an error.
            let firstError = diagnostics.first { $0.severity == .error }
            #expect(firstError.map(matches) == true, "expected first error \(fixture.line):\(fixture.column) \(fixture.message)\ngot:\n\(report)")
        case .warning:
            // A warning fixture is otherwise valid.
            #expect(diagnostics.contains(where: matches), "expected warning \(fixture.line):\(fixture.column) \(fixture.message)\ngot:\n\(report)")
            #expect(!diagnostics.containsErrors, "a warning fixture must have no error:\n\(report)")
        }
    }

    @Test("A file with several defects reports all of them, in position order")
    func severalDefects() {
        let text = """
            restmap: 1
            entities:
              User:
                identifiedBy: userID
                atributes: [id]
                relationships:
                  owner: { from: owner..id, entity: Usr, many: yes }
            responses:
              - { path: users, status: 6xx, entity: User }
            routes:
              me: GIT /user
            """
        let diagnostics = Schema.validate(bytes: Array(text.utf8), file: "several.yaml").diagnostics
        let found = diagnostics.map { "\($0.location.line):\($0.location.column) \($0.severity.rawValue)" }
        #expect(found == [
            "4:19 error",   // identifiedBy names an attribute User does not map
            "5:5 error",    // unknown key 'atributes'
            "7:28 error",   // empty key path segment
            "7:41 error",   // undefined entity 'Usr'
            "7:52 error",   // 'yes' for a boolean
            "9:13 error",   // path pattern without '/'
            "9:28 error",   // status 6xx
            "11:7 error",   // unknown method GIT
        ], "\(diagnostics.map { "\($0)" }.joined(separator: "\n"))")
        #expect(diagnostics == diagnostics.sortedByPosition())
    }

    @Test("Bytes that are not UTF-8 are refused at their position")
    func notUTF8() throws {
        let file = try TemporaryFile(named: "latin1.yaml", bytes: Array("restmap: 1\nname: caf".utf8) + [0xE9] + Array("\n".utf8))
        defer { file.remove() }
        let diagnostics = Schema.validate(contentsOf: file.url.path).diagnostics
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.description == "\(file.url.path):2:10: error: the file is not UTF-8 text (invalid byte 0xE9 at offset 20)")
    }

    @Test("A zero-byte file is empty")
    func zeroBytes() {
        let diagnostics = Schema.validate(bytes: [], file: "empty.yaml").diagnostics
        #expect(diagnostics.map(\.description) == ["empty.yaml:1:1: error: the file is empty; a schema starts with 'restmap: 1'"])
    }

    @Test("A directory is not a schema file")
    func directory() {
        let diagnostics = Schema.validate(contentsOf: Paths.broken.path).diagnostics
        #expect(diagnostics.map(\.description) == ["\(Paths.broken.path):1:1: error: is a directory, not a schema file"])
    }

    @Test("A missing file is reported")
    func missingFile() {
        let diagnostics = Schema.validate(contentsOf: "/nonexistent/schema.yaml").diagnostics
        #expect(diagnostics.map(\.description) == ["/nonexistent/schema.yaml:1:1: error: no such file"])
    }

    @Test("An alias bomb is refused once its expansion passes the node budget")
    func aliasBomb() {
        let path = Paths.broken.appendingPathComponent("alias-bomb.yaml").path
        let diagnostics = Schema.validate(contentsOf: path).diagnostics
        // The guard counts expanded nodes and stops at its budget: the work is bounded by the count, not by time.
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.hasPrefix("aliases expand the document beyond 200000 nodes") == true)
    }

    @Test("10,000 levels of flow nesting are refused without a crash", arguments: ["[", "{a: "])
    func deepNesting(_ opener: String) {
        let text = String(repeating: opener, count: 10_000)
        let diagnostics = Schema.validate(bytes: Array(text.utf8), file: "deep.yaml").diagnostics
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message == "nesting deeper than 128 levels")
        #expect(diagnostics.first?.location.line == 1)
    }

    @Test("Random bytes give diagnostics, not a crash", arguments: 1...8)
    func binaryGarbage(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let loaded = Schema.validate(bytes: bytes, file: "garbage.bin")
        #expect(loaded.schema == nil)
        #expect(loaded.diagnostics.containsErrors)
    }

    @Test("Random printable text gives diagnostics, not a crash", arguments: 1...8)
    func textGarbage(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        let alphabet = Array("abcXYZ019 :-[]{},'\"#&*!|>?@`%\n\n\t  ".utf8)
        let bytes = (0..<4096).map { _ in alphabet.randomElement(using: &generator)! }
        let loaded = Schema.validate(bytes: bytes, file: "garbage.yaml")
        #expect(loaded.schema == nil)
        #expect(loaded.diagnostics.containsErrors)
    }
}

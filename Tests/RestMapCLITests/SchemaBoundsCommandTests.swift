import Foundation
import RestMapTestSupport
import Testing

/// `restmap validate` on hostile schemas and `restmap map` run from the binary's own folder.
@Suite("restmap validate: bounded work; plugins compared by identity")
struct SchemaBoundsCommandTests {
    /// A fresh scratch folder.
    func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-bounds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A schema of `count` entities with 100-letter names, each referring to a misspelled (one
    /// letter changed) earlier name; the misspellings with the names they came from.
    static func hostileSchema(entities count: Int) -> (text: String, misspellings: [(wrong: String, right: String)]) {
        var state: UInt64 = 99
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var names: [String] = []
        var misspellings: [(String, String)] = []
        var text = "restmap: 1\nentities:\n"
        for index in 0..<count {
            let name = "E" + String((0..<100).map { _ in letters[next(letters.count)] }) + "\(index)"
            names.append(name)
            let right = names[next(names.count)]
            var wrong = Array(right)
            let position = 1 + next(99)
            wrong[position] = wrong[position] == "x" ? "y" : "x"
            misspellings.append((String(wrong), right))
            text += "  \(name):\n    attributes: { id: id }\n    relationships:\n      r: { entity: \(String(wrong)) }\n"
        }
        return (text, misspellings)
    }

    @Test("A 1 MB schema of long names and misspellings: every error reported, suggestions stop at their budget and say so")
    func hostileSchema() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (text, misspellings) = Self.hostileSchema(entities: 3500)
        #expect(text.utf8.count > 900_000)
        try text.write(to: directory.appendingPathComponent("hostile.yaml"), atomically: true, encoding: .utf8)

        let run = try CLI.run(["validate", "hostile.yaml"], in: directory)
        #expect(run.status == 1)
        let lines = run.output.split(separator: "\n")
        let undefined = lines.filter { $0.contains(": error: relationship 'r' refers to undefined entity '") }
        #expect(undefined.count == misspellings.count)
        // Suggestions made before the budget ran out name the entity each misspelling came from.
        var suggested = 0
        for (line, misspelling) in zip(undefined, misspellings) where line.hasSuffix("?)") {
            #expect(line.hasSuffix("undefined entity '\(misspelling.wrong)' (did you mean '\(misspelling.right)'?)"), "\(line)")
            suggested += 1
        }
        #expect(suggested > 0 && suggested < misspellings.count, "\(suggested) suggestions")
        let stopped = lines.filter { $0.hasPrefix("hostile.yaml:1:1: warning: 'did you mean' suggestions stopped after 5000000 steps") }
        #expect(stopped.count == 1, "\(run.output.prefix(2000))")
        #expect(stopped.first?.contains("; \(misspellings.count - suggested) unknown names got none") == true)
    }

    @Test("A schema of ordinary size gets every suggestion")
    func everySuggestion() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (text, misspellings) = Self.hostileSchema(entities: 250)
        try text.write(to: directory.appendingPathComponent("names.yaml"), atomically: true, encoding: .utf8)
        let run = try CLI.run(["validate", "names.yaml"], in: directory)
        #expect(run.status == 1)
        let undefined = run.output.split(separator: "\n").filter { $0.contains("refers to undefined entity") }
        #expect(undefined.count == misspellings.count)
        for (line, misspelling) in zip(undefined, misspellings) {
            #expect(line.hasSuffix("(did you mean '\(misspelling.right)'?)"), "\(line)")
        }
        #expect(!run.output.contains("suggestions stopped"))
    }

    @Test("map with a schema in the binary's own folder loads dates from there without warning about that same file")
    func firstPartyPluginFromTheBinaryFolder() throws {
        let build = TestPaths.buildFolder
        try #require(FileManager.default.fileExists(atPath: build.appendingPathComponent("librestmap-dates.so").path))
        // The schema lies beside the binary and is named relative to it: its folder is "."
        let name = "restmap-identity-\(UUID().uuidString).yaml"
        let schema = build.appendingPathComponent(name)
        try """
            restmap: 1
            plugins: [dates]
            entities:
              Event:
                attributes:
                  name: name
                  at: { from: at, type: date }
            responses:
              - { entity: Event }

            """.write(to: schema, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: schema) }
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sample = directory.appendingPathComponent("sample.json")
        try #"[{"name": "launch", "at": "Wed, 13 Mar 2013 18:10:21 GMT"}]"#.write(to: sample, atomically: true, encoding: .utf8)

        let map = try CLI.run(["map", "--schema", name, sample.path], in: build)
        #expect(map.status == 0, "\(map.errors)")
        #expect(map.output == #"[{"$entity":"Event","name":"launch","at":"2013-03-13T18:10:21Z"}]"# + "\n")
        #expect(!map.errors.contains("ignored"), "\(map.errors)")
        #expect(map.errors.isEmpty, "\(map.errors)")

        let validate = try CLI.run(["validate", name], in: build)
        #expect(validate.status == 0, "\(validate.output)\(validate.errors)")
        #expect(validate.output.isEmpty, "\(validate.output)")
    }
}

/// A key longer than libyaml's limit is reported as such, in JSON and in YAML.
@Suite("restmap validate: long keys")
struct LongKeyCommandTests {
    @Test("A key of 1,500 characters is reported at the key with the limit; one of 1,000 is accepted; '? key' lifts the limit in YAML")
    func longKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let long = String(repeating: "k", count: 1500)
        let rest = #""entities": {"User": {"attributes": {"id": "id"}}}, "responses": [{"entity": "User"}]"#
        let files = [
            "long.json": #"{"restmap": 1, \#(rest), "headers": {"\#(long)": "v"}}"# + "\n",
            "fine.json": #"{"restmap": 1, \#(rest), "headers": {"\#(String(repeating: "k", count: 1000))": "v"}}"# + "\n",
            "long.yaml": "restmap: 1\nheaders:\n  \(long): v\n",
            "explicit.yaml": "restmap: 1\nheaders:\n  ? \(long)\n  : v\nentities:\n  User:\n    attributes: { id: id }\nresponses:\n  - { entity: User }\n",
        ]
        for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let limit = "a mapping key of 1500 characters: keys are limited to 1024 characters (the YAML parser's limit for a key, which applies to JSON schemas too)"

        let json = try CLI.run(["validate", "long.json"], in: directory)
        #expect(json.status == 1)
        let column = try #require(files["long.json"]!.range(of: long)).lowerBound.utf16Offset(in: files["long.json"]!) + 1
        #expect(json.output == "long.json:1:\(column): error: \(limit)\n")

        let yaml = try CLI.run(["validate", "long.yaml"], in: directory)
        #expect(yaml.status == 1)
        #expect(yaml.output == "long.yaml:3:3: error: \(limit)\n")

        for name in ["fine.json", "explicit.yaml"] {
            let run = try CLI.run(["validate", name], in: directory)
            #expect(run.status == 0, "\(name): \(run.output)")
            #expect(run.output.isEmpty, "\(name): \(run.output)")
        }
    }
}

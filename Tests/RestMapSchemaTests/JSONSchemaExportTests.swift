import Foundation
import RestMapSchema
import Testing

/// The JSON Schema export: the committed copy, its structure, and what it accepts and rejects.
@Suite("JSON Schema export")
struct JSONSchemaExportTests {
    @Test("Schemas/restmap.schema.json is the generated JSON Schema, byte for byte")
    func committedCopy() throws {
        let committed = try String(contentsOf: Paths.committedJSONSchema, encoding: .utf8)
        #expect(committed == JSONSchemaExport.document(),
                "Schemas/restmap.schema.json is stale: regenerate it with `swift run restmap schema --json-schema > Schemas/restmap.schema.json`")
    }

    @Test("Every named object of the grammar is a closed $defs entry with descriptions")
    func definitions() throws {
        let document = try #require(
            JSONSerialization.jsonObject(with: Data(JSONSchemaExport.document().utf8)) as? [String: Any])
        #expect(document["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        #expect(document["additionalProperties"] as? Bool == false)
        #expect((document["required"] as? [String]) == ["restmap", "entities"])
        let definitions = try #require(document["$defs"] as? [String: [String: Any]])
        for name in ["entity", "attribute", "relationship", "dynamic", "response", "error", "request", "pagination", "route", "store"] {
            let definition = try #require(definitions[name], "no $defs entry '\(name)'")
            #expect(definition["additionalProperties"] as? Bool == false, "\(name)")
            #expect(definition["description"] is String, "\(name)")
            let properties = try #require(definition["properties"] as? [String: [String: Any]], "\(name)")
            for (key, property) in properties {
                #expect(property["description"] is String, "\(name).\(key) has no description")
            }
        }
        #expect((definitions["response"]?["required"] as? [String]) == ["entity"])
        let restmap = (document["properties"] as? [String: [String: Any]])?["restmap"]
        #expect(restmap?["const"] as? Int == 1)
    }

    @Test("Generation is deterministic")
    func deterministic() {
        #expect(JSONSchemaExport.document() == JSONSchemaExport.document())
    }

    @Test("Valid fixtures validate clean with the RestMap validator", arguments: Paths.files(in: Paths.valid))
    func validFixture(_ name: String) {
        let loaded = Schema.validate(contentsOf: Paths.valid.appendingPathComponent(name).path)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map { "\($0)" }.joined(separator: "\n"))")
        #expect(loaded.schema != nil)
    }

    @Test("The JSON Schema accepts the valid fixtures and rejects the structural defects (Python jsonschema)")
    func pythonJSONSchema() throws {
        let valid = Paths.files(in: Paths.valid).map { Paths.valid.appendingPathComponent($0).path } + Paths.examples
        let rejected = BrokenFixture.all.filter(\.jsonSchemaRejects).map(\.path)
        #expect(valid.count >= 11)
        #expect(rejected.count >= 20)
        let verdicts = try Self.jsonSchemaVerdicts(for: valid + rejected)
        for path in valid {
            #expect(verdicts[path] == "accepts", "\(path): \(verdicts[path] ?? "no verdict")")
        }
        for path in rejected {
            #expect(verdicts[path]?.hasPrefix("rejects") == true, "\(path): \(verdicts[path] ?? "no verdict")")
        }
    }

    /// Loads each file as YAML the way RestMap does (YAML 1.2 core booleans, no timestamps) and
    /// validates it against the committed JSON Schema: prints `PATH<TAB>accepts|rejects: REASON`.
    static let checker = #"""
        import json, re, sys
        import jsonschema, yaml

        class Loader(yaml.SafeLoader):
            pass

        Loader.yaml_implicit_resolvers = {
            first: [(tag, regexp) for tag, regexp in resolvers
                    if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
        }
        Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                                     re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))

        def string_keys(value):
            if isinstance(value, dict):
                return {str(key): string_keys(item) for key, item in value.items()}
            if isinstance(value, list):
                return [string_keys(item) for item in value]
            return value

        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1], encoding="utf-8")))
        for path in sys.argv[2:]:
            try:
                document = string_keys(yaml.load(open(path, encoding="utf-8"), Loader=Loader))
            except yaml.YAMLError as error:
                print(path + "\tunreadable: " + str(error).replace("\n", " "))
                continue
            errors = list(validator.iter_errors(document))
            print(path + "\t" + ("rejects: " + errors[0].message.replace("\n", " ") if errors else "accepts"))
        """#

    static func jsonSchemaVerdicts(for paths: [String]) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", checker, Paths.committedJSONSchema.path] + paths
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0,
                     "python3 with jsonschema and pyyaml is needed (pip install jsonschema pyyaml):\n\(problem)")
        var verdicts: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { verdicts[String(parts[0])] = String(parts[1]) }
        }
        return verdicts
    }
}

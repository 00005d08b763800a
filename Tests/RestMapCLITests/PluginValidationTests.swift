import Foundation
import Testing

/// `restmap validate` checks transformer names and arguments against the plugins it loads.
@Suite("restmap validate with plugins")
struct PluginValidationTests {
    func validate(_ schema: String) throws -> CLI.Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try schema.write(to: directory.appendingPathComponent("schema.yaml"), atomically: true, encoding: .utf8)
        return try CLI.run(["validate", "schema.yaml"], in: directory)
    }

    func schema(plugins: String, transform: String) -> String {
        """
        restmap: 1
        plugins: [\(plugins)]
        entities:
          Event:
            attributes:
              at: { from: at, type: date, transform: \(transform) }
        responses:
          - { entity: Event }
        """
    }

    @Test("A known transformer with good arguments is clean")
    func clean() throws {
        let run = try validate(schema(plugins: "dates", transform: #"{dates.parse: {formats: ["MM/dd/yyyy"], timeZone: UTC}}"#))
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.isEmpty)
    }

    @Test("A misspelled transformer gets a suggestion")
    func unknownTransformer() throws {
        let run = try validate(schema(plugins: "dates", transform: "dates.parze"))
        #expect(run.status == 1)
        #expect(run.output == "schema.yaml:6:46: error: plugin 'dates' has no transformer 'dates.parze' (did you mean 'dates.parse'?)\n")
    }

    @Test("A misspelled argument gets a suggestion")
    func unknownArgument() throws {
        let run = try validate(schema(plugins: "dates", transform: #"{dates.parse: {formatz: ["MM/dd/yyyy"]}}"#))
        #expect(run.status == 1)
        #expect(run.output.contains("error: transformer 'dates.parse' has no argument 'formatz' (did you mean 'formats'?)"))
    }

    @Test("A transformer of a plugin the schema does not load says which plugin to add")
    func undeclaredPlugin() throws {
        let run = try validate(schema(plugins: "dates", transform: "ids.oid"))
        #expect(run.status == 1)
        #expect(run.output.contains("transformer 'ids.oid' comes from plugin 'ids', which this schema does not load: add it to 'plugins:'"))
    }

    @Test("A plugin that cannot be found is an error at its name, listing the paths searched")
    func missingPlugin() throws {
        let run = try validate(schema(plugins: "dates, nosuch", transform: "dates.parse"))
        #expect(run.status == 1)
        #expect(run.output.contains("schema.yaml:2:18: error: cannot load plugin 'nosuch'"))
        #expect(run.output.contains("librestmap-nosuch.so"))
    }
}

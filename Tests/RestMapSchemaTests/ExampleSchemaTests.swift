import Foundation
import RestMapSchema
import Testing

/// The example schemas of the seed stories under `Schemas/`.
@Suite struct ExampleSchemaTests {
    @Test func everySeedStoryHasAnExample() {
        let names = Set(Paths.examples.map { URL(fileURLWithPath: $0).lastPathComponent })
        for story in ["mongohq.yaml", "stashboard.yaml", "github.yaml", "tasks.yaml", "bank.yaml", "rsapi.yaml"] {
            #expect(names.contains(story), "Schemas/\(story) is missing")
        }
    }

    @Test(arguments: Paths.examples)
    func validatesCleanAndPointsEditorsAtTheJSONSchema(_ path: String) throws {
        let loaded = Schema.validate(contentsOf: path)
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        #expect(loaded.schema != nil)
        let firstLine = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first
        #expect(firstLine == "# yaml-language-server: $schema=restmap.schema.json")
    }
}

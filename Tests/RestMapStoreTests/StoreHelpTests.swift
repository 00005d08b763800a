import Foundation
import RestMapTestSupport
import Testing

/// Every example the store commands' help shows runs as written from the repository root.
@Suite struct StoreHelpTests {
    /// The example commands of a help text: lines starting with `restmap `, joined with the
    /// lines a trailing backslash continues.
    static func examples(in help: String) -> [[String]] {
        var commands: [[String]] = []
        var pending: String?
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if var text = pending ?? (line.hasPrefix("restmap ") ? "" : nil) {
                text += (text.isEmpty ? "" : " ") + line
                if text.hasSuffix("\\") {
                    pending = String(text.dropLast()).trimmingCharacters(in: .whitespaces)
                } else {
                    pending = nil
                    commands.append(text.split(separator: " ").map(String.init))
                }
            }
        }
        return commands
    }

    @Test func everyStoreAndSeedHelpExampleRunsAsWritten() throws {
        // A folder that looks like the repository root: the examples' files, and room for their databases.
        let folder = try StoreFixture.folder()
        for name in ["Schemas", "Samples"] {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name),
                                                       withDestinationURL: StoreFixture.root.appendingPathComponent(name))
        }
        let restmap = try TestPaths.built("restmap")
        var ran: [String] = []
        // In an order where each reading example finds the store an import example built.
        for command in [["store", "import"], ["store", "query"], ["store", "search"], ["store"], ["seed"], []] {
            // 80 columns, as a terminal shows them.
            let help = try ChildProcess.run(restmap, command + ["--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            var examples = Self.examples(in: help.output)
            if command.isEmpty { examples = examples.filter { $0.starts(with: ["restmap", "store"]) } }
            #expect(!examples.isEmpty, "restmap \(command.joined(separator: " ")) --help shows no example")
            for example in examples {
                #expect(example.first == "restmap")
                let run = try ChildProcess.run(restmap, Array(example.dropFirst()), in: folder)
                #expect(run.status == 0, "\(example.joined(separator: " ")): \(run.errors)")
                ran.append(example.joined(separator: " "))
            }
        }
        #expect(ran.contains { $0.contains("query") && $0.contains("--path /users/octocat/starred") })
        // The reading examples found records.
        let top = try ChildProcess.run(restmap, ["store", "query", "--schema", "Schemas/github.yaml", "--db", "github.sqlite",
                                                 "Repository", "--where", "name=RestKit"], in: folder)
        #expect(top.errors.contains("1 record"), "\(top.errors)")
    }
}

import Foundation
import RestMapTestSupport
import Testing

/// The examples in `--help` of the commands that work offline run as written from the repository's root.
@Suite("restmap help examples")
struct HelpExampleTests {
    /// The commands whose help is checked; get, send, store and seed are checked with the client and the store.
    static let commands = ["map", "validate", "test", "init", "plugins", "schema", "lsp"]

    /// The example command lines of a help text: the lines starting with `restmap ` after a line
    /// starting with `Example` (to the end of its paragraph), with the lines a trailing `\` continues.
    static func examples(in help: String) -> [String] {
        var examples: [String] = []
        var inExamples = false
        var continues = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if continues, !examples.isEmpty {
                examples[examples.count - 1] += "\n" + trimmed
            } else if trimmed.hasPrefix("Example") {
                inExamples = true
            } else if inExamples, trimmed.hasPrefix("restmap ") || trimmed == "restmap" {
                examples.append(trimmed)
            } else if trimmed.isEmpty {
                inExamples = false
            }
            continues = inExamples && trimmed.hasSuffix("\\")
        }
        return examples
    }

    @Test("Each command's --help shows an example, and each example exits 0 from the repository's root", arguments: commands)
    func examplesRun(_ command: String) throws {
        let restmap = try TestPaths.built("restmap")
        let help = try CLI.run([command, "--help"])
        #expect(help.status == 0)
        let examples = Self.examples(in: help.output)
        #expect(!examples.isEmpty, "\(command) --help shows no example:\n\(help.output)")
        // The language server ends when the editor says so: it gets shutdown and exit.
        let input = command == "lsp" ? Self.lspShutdown : Data()
        for example in examples {
            let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", example], in: CLI.repository, input: input,
                                           environment: ["PATH": restmap.deletingLastPathComponent().path + ":/usr/bin:/bin"])
            #expect(run.status == 0, "`\(example)` exited \(run.status): \(run.errors)")
            #expect(!(run.output + run.errors).isEmpty, "`\(example)` printed nothing")
        }
    }

    @Test("The overview's examples for these commands name files of the repository")
    func overviewExamples() throws {
        let help = try CLI.run(["--help"])
        let examples = Self.examples(in: help.output).filter { line in
            Self.commands.contains { line.hasPrefix("restmap \($0) ") }
        }
        #expect(examples.count >= 4, "\(help.output)")
        #expect(examples.contains { $0.hasPrefix("restmap map ") })
        let restmap = try TestPaths.built("restmap")
        for example in examples {
            #expect(!example.contains(">"), "`\(example)` would write a file")
            let command = example
            let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], in: CLI.repository,
                                           environment: ["PATH": restmap.deletingLastPathComponent().path + ":/usr/bin:/bin"])
            #expect(run.status == 0, "`\(command)` exited \(run.status): \(run.errors)")
        }
    }

    /// LSP `shutdown` then `exit`, framed.
    static var lspShutdown: Data {
        let messages = [#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#, #"{"jsonrpc":"2.0","method":"exit"}"#]
        return Data(messages.map { "Content-Length: \($0.utf8.count)\r\n\r\n\($0)" }.joined().utf8)
    }
}

import ArgumentParser
import RestMapLSP

/// `restmap lsp`: the language server of schema files, over standard input and output.
struct LSPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Run the language server for schema files (LSP 3.17, JSON-RPC over stdio).",
        discussion: """
            Editors start it and talk to it on standard input and output: diagnostics as the file changes, \
            completion, hover and go to definition. Plugins load only from the folders in the editor's \
            settings ("pluginPaths" in initializationOptions, or the restmap.pluginPaths setting).

            Example (an editor runs it; Docs/Authoring.md shows VS Code and Neovim setups):
              restmap lsp
            """
    )

    @Flag(help: "Accepted for editors that pass it: standard input and output are the only transport.")
    var stdio = false

    func run() throws {
        let status = LanguageServer().run()
        if status != 0 { throw ExitCode(status) }
    }
}

import ArgumentParser
import RestMapCLICore
import RestMapPluginKit
import RestMapPlugins

/// `restmap plugins`: the plugins on the search path, with their versions and transformers, and
/// the plugin libraries that are not loaded from where they lie.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the plugins found on the plugin search path, with their transformers.",
        discussion: """
            --plugin-path FOLDER adds a folder of plugin libraries to the search path.

            Examples (run from the repository's root):
              restmap plugins
              restmap plugins --schema Schemas/stashboard.yaml
            """)

    @OptionGroup var plugins: PluginOptions

    @Option(help: ArgumentHelp(
        "Also report the plugin libraries in the folder of this schema, which are not loaded unless given with --plugin-path.",
        valueName: "file"))
    var schema: String?

    func run() throws {
        let schemaDirectory = schema.map { path in
            let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            return parent.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : parent
        }
        let searchPath = plugins.searchPath(schemaDirectory: schemaDirectory)
        let candidates = searchPath.candidates()
        if candidates.isEmpty {
            print("No plugins found. Searched: \((searchPath.firstPartyDirectories + searchPath.directories).joined(separator: ", "))")
        }
        for candidate in candidates {
            do {
                var registry = PluginRegistry()
                print(describe(try registry.load(path: candidate.path)))
            } catch {
                print("\(candidate.name)  (cannot load)  \(candidate.path)\n  error: \(error)\n")
            }
        }
        for refusal in searchPath.refusals() {
            print("\(refusal.name)  (not loaded)  \(refusal.path)\n  \(refusal.reason)\n")
        }
    }

    private func describe(_ plugin: PluginRegistry.PluginInfo) -> String {
        var lines = ["\(plugin.name) \(plugin.version)  \(plugin.path ?? "(linked in)")"]
        for transformer in plugin.transformers {
            lines.append("  \(plugin.name).\(transformer.name)\(signature(transformer.arguments))  \(transformer.summary)")
        }
        for decoder in plugin.bodyDecoders {
            lines.append("  body \(decoder.mediaType)\(signature(decoder.arguments))  \(decoder.summary)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func signature(_ arguments: [ArgumentSpec]) -> String {
        guard !arguments.isEmpty else { return "" }
        let parts = arguments.map { "\($0.name)\($0.isRequired ? "" : "?"): \($0.kind.rawValue)" }
        return " {" + parts.joined(separator: ", ") + "}"
    }
}

import ArgumentParser
import RestMapPlugins

/// The plugin options every command that loads plugins shares: `--plugin-path DIR` (repeatable).
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp(
            "A directory to search for plugins (librestmap-<name>.so); repeatable.",
            discussion: "Searched after the schema's folder and before RESTMAP_PLUGIN_PATH and the installed plugin folders.",
            valueName: "dir"))
    var pluginPaths: [String] = []

    /// The standard plugin search path with these options, for a schema in `schemaDirectory`.
    func searchPath(schemaDirectory: String? = nil) -> PluginSearchPath {
        PluginSearchPath(schemaDirectory: schemaDirectory, pluginPaths: pluginPaths)
    }
}

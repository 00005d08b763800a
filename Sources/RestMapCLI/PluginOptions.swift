import ArgumentParser
import RestMapPlugins

/// The plugin options every command that loads plugins shares: `--plugin-path DIR` (repeatable).
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin-path"),
        help: ArgumentHelp(
            "A directory to load plugins (librestmap-<name>.so) from; repeatable.",
            discussion: """
                Searched in the order given, before RESTMAP_PLUGIN_PATH and the installed plugin folder. \
                The schema's folder and the current directory are never searched: give one here to trust \
                the plugins it holds. The first-party plugins (dates, ids, csv) come only from the restmap \
                binary's folder or the installed plugin folder.
                """,
            valueName: "dir"))
    var pluginPaths: [String] = []

    /// The standard plugin search path with these options, for a schema in `schemaDirectory`
    /// (never searched: only named when it holds a plugin that is not loaded).
    func searchPath(schemaDirectory: String? = nil) -> PluginSearchPath {
        PluginSearchPath(schemaDirectory: schemaDirectory, pluginPaths: pluginPaths)
    }
}

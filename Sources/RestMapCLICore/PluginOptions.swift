import ArgumentParser
import RestMap
import RestMapPluginLoader

/// The plugin options every command that loads plugins shares: `--plugin-path DIR` (repeatable).
package struct PluginOptions: ParsableArguments {
    package init() {}

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
    package var pluginPaths: [String] = []

    /// The standard plugin search path with these options, for a schema in `schemaDirectory`
    /// (never searched: only named when it holds a plugin that is not loaded).
    package func searchPath(schemaDirectory: String? = nil) -> PluginSearchPath {
        PluginSearchPath(schemaDirectory: schemaDirectory, pluginPaths: pluginPaths)
    }

    /// How the commands load a schema: the plugins it names come from this search path.
    package var loadOptions: SchemaLoadOptions {
        SchemaLoadOptions(pluginProvider: searchPath())
    }

    /// The mapper of `schema` with its plugins, for every command that maps. Errors print and
    /// exit 1; warnings (such as a plugin library that was ignored) print and do not stop it.
    /// A schema `restmap map` began loading while its command line was parsed
    /// (`SchemaPreload`) is taken when it is this one with these plugin folders.
    package func mapper(for schema: String) throws -> Mapper {
        let preloaded = SchemaPreload.take(schema: schema, pluginPaths: pluginPaths)
        let loaded = preloaded?.loaded ?? Schema.load(contentsOf: schema, options: loadOptions)
        let mapper: Mapper
        switch preloaded?.mapper ?? Result(catching: { () throws(SchemaLoadError) in try loaded.mapper() }) {
        case .success(let compiled): mapper = compiled
        case .failure(let error):
            Terminal.error(error.description + "\n")
            throw ExitCode.failure
        }
        for warning in loaded.diagnostics where warning.severity == .warning {
            Terminal.error("\(warning)\n")
        }
        return mapper
    }
}

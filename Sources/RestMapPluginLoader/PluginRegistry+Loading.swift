import FoundationEssentials
import RestMapPlugins

extension PluginRegistry {
    /// Loads the plugin `librestmap-<name>.so` from the first directory of `searchPath` holding it
    /// (for a first-party name, of its first-party directories), and registers it.
    @discardableResult
    public mutating func load(named name: String, searchPath: PluginSearchPath) throws(PluginError) -> PluginInfo {
        try load(path: searchPath.locate(name))
    }

    /// Loads the plugin library at `path`, once `PluginTrust` accepted it, and registers it.
    /// - Throws: `PluginError.notAPlugin` when a `librestmap-<name>.so` declares another name, so
    ///   that no library can take the namespace of another plugin.
    @discardableResult
    public mutating func load(path: String) throws(PluginError) -> PluginInfo {
        let plugin = try PluginLoader.load(path: path)
        if let name = PluginNames.pluginName(fromFileName: FilePaths.lastComponent(of: path)), plugin.name != name {
            throw PluginError.notAPlugin(path: path, reason: "it declares the plugin name '\(plugin.name)', not '\(name)'")
        }
        try add(plugin)
        return plugin
    }
}

extension PluginSearchPath: PluginProvider {
    /// Loads the plugin from this search path; the schema's folder is never searched, only named
    /// in the error when it holds the library. A first-party library lying outside the first-party
    /// folders is ignored, and each such copy is returned as a warning.
    public func provide(plugin name: String, forSchemaAt schemaFile: String,
                        into registry: inout PluginRegistry) throws(PluginError) -> [String] {
        let searchPath = addingUnsearchedDirectory(FilePaths.directory(of: schemaFile).isEmpty ? "." : FilePaths.directory(of: schemaFile))
        try registry.load(named: name, searchPath: searchPath)
        guard PluginNames.reserved.contains(name) else { return [] }
        return searchPath.refusals(forPlugin: name).map { "ignored \($0.path): \($0.reason)" }
    }
}

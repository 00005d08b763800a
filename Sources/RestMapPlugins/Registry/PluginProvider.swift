/// Supplies the plugins a schema names in `plugins:` that its registry does not hold yet.
///
/// `PluginSearchPath` (module `RestMapPluginLoader`) loads them from disk; an embedder that links
/// its plugins statically registers them up front and needs no provider.
public protocol PluginProvider: Sendable {
    /// Registers the plugin `name` into `registry`.
    /// - Parameter schemaFile: the schema that names the plugin, for messages that point at its folder.
    /// - Returns: warnings about the plugin (such as copies ignored, and why), reported at the
    ///   plugin's name in the schema.
    func provide(plugin name: String, forSchemaAt schemaFile: String,
                 into registry: inout PluginRegistry) throws(PluginError) -> [String]
}

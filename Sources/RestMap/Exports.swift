// `import RestMap` is all an embedder needs to load a schema and map: the schema model and its
// diagnostics, the plugin registry, and what plugins are written with.
@_exported import RestMapPluginKit
@_exported import RestMapPlugins
@_exported import RestMapSchema

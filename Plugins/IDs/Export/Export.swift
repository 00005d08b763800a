import RestMapIDs
import RestMapPluginKit

/// The entry symbol of `librestmap-ids.so`.
@_cdecl("restmap_plugin_entry_v1")
public func restmapPluginEntry() -> UnsafeRawPointer { exportPlugin(IDsPlugin.self) }

import RestMapCSV
import RestMapPluginKit

/// The entry symbol of `librestmap-csv.so`.
@_cdecl("restmap_plugin_entry_v1")
public func restmapPluginEntry() -> UnsafeRawPointer { exportPlugin(CSVPlugin.self) }

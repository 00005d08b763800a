import RestMapDates
import RestMapPluginKit

/// The entry symbol of `librestmap-dates.so`.
@_cdecl("restmap_plugin_entry_v1")
public func restmapPluginEntry() -> UnsafeRawPointer { exportPlugin(DatesPlugin.self) }

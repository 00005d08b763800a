/// How plugins are named: the identifiers a schema's `plugins:` lists, and the library file that
/// holds each loadable one.
public enum PluginNames {
    /// The environment variable holding extra plugin directories (colon-separated).
    public static let searchPathVariable = "RESTMAP_PLUGIN_PATH"

    /// The names of the first-party plugins, which only the restmap binary's folder and the
    /// installed plugin folder may supply when loading from disk.
    public static let reserved: Set<String> = ["dates", "ids", "csv"]

    /// The library file name of a plugin: `librestmap-<name>.so`.
    public static func fileName(forPlugin name: String) -> String { "librestmap-\(name).so" }

    /// The plugin name in a library file name (`librestmap-dates.so` gives `dates`), else `nil`.
    public static func pluginName(fromFileName fileName: String) -> String? {
        let prefix = "librestmap-", suffix = ".so"
        guard fileName.hasPrefix(prefix), fileName.hasSuffix(suffix), fileName.count > prefix.count + suffix.count else {
            return nil
        }
        return String(fileName.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// Whether `name` is a plugin name: one or more ASCII letters, digits, `-` and `_`.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }
}

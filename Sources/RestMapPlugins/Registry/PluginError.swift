/// Why a plugin could not be found, loaded or registered, or why one of its transformers failed.
public enum PluginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `librestmap-<name>.so` in any directory of the search path (listed in search order).
    case notFound(name: String, searched: [String])
    /// The file exists but is not a RestMap plugin: it does not load (the loader's message) or has
    /// no entry symbol.
    case notAPlugin(path: String, reason: String)
    /// The plugin was built against another version of the plugin ABI.
    case abiMismatch(path: String, expected: UInt32, found: UInt32)
    /// Two plugins define the same qualified transformer name.
    case duplicateTransformer(name: String, plugin: String)
    /// A transformer rejected its arguments or a value; `message` is the plugin's. The interpreter
    /// adds the value's position.
    case transformerFailed(transformer: String, message: String)
    /// A body decoder rejected a body; `message` is the plugin's.
    case bodyDecoderFailed(mediaType: String, message: String)

    public var description: String {
        switch self {
        case .notFound(let name, let searched):
            let file = PluginSearchPath.fileName(forPlugin: name)
            return searched.isEmpty
                ? "plugin '\(name)' not found: the plugin search path is empty"
                : "plugin '\(name)' not found: no \(file) in " + searched.joined(separator: ", ")
        case .notAPlugin(let path, let reason):
            return "\(path) is not a RestMap plugin: \(reason)"
        case .abiMismatch(let path, let expected, let found):
            return "\(path) was built for plugin ABI version \(found), but this restmap needs version \(expected); rebuild the plugin"
        case .duplicateTransformer(let name, let plugin):
            return "plugin '\(plugin)' defines transformer '\(name)', which another plugin already defines"
        case .transformerFailed(let transformer, let message):
            return "\(transformer): \(message)"
        case .bodyDecoderFailed(let mediaType, let message):
            return "\(mediaType) body: \(message)"
        }
    }
}

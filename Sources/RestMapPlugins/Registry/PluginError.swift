import FoundationEssentials

/// Why a plugin could not be found, loaded or registered, or why one of its transformers failed.
public enum PluginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `librestmap-<name>.so` in any directory the plugin may come from (listed in search
    /// order); `untrusted` lists copies found where plugins are not taken from (the schema's
    /// folder, the current directory, or for a first-party plugin any other folder).
    case notFound(name: String, searched: [String], untrusted: [String] = [])
    /// A schema names a plugin that is neither registered in process nor loadable: the schema was
    /// loaded without a `PluginProvider`.
    case notRegistered(name: String)
    /// A plugin name that is not an identifier (letters, digits, `-`, `_`).
    case invalidName(String)
    /// The file was refused before it was opened, so none of its code ran: who may write it or
    /// its folders, or who owns them, makes it unsafe to load. `reason` names the offending path.
    case untrusted(path: String, reason: String)
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
        case .notFound(let name, let searched, let untrusted):
            return Self.notFoundMessage(name: name, searched: searched, untrusted: untrusted)
        case .notRegistered(let name):
            return "plugin '\(name)' is not registered: register it in process (PluginRegistry.register) or give a plugin provider that loads it (PluginSearchPath, in RestMapPluginLoader)"
        case .invalidName(let name):
            return "'\(name)' is not a plugin name: use letters, digits, '-' and '_'"
        case .untrusted(let path, let reason):
            return "refused to load \(path): \(reason)"
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

    private static func notFoundMessage(name: String, searched: [String], untrusted: [String]) -> String {
        let file = PluginNames.fileName(forPlugin: name)
        var message = searched.isEmpty
            ? "plugin '\(name)' not found: the plugin search path is empty"
            : "plugin '\(name)' not found: no \(file) in " + searched.joined(separator: ", ")
        if PluginNames.reserved.contains(name) {
            message += "; '\(name)' is a first-party plugin, loaded only from the restmap binary's folder or the installed plugin folder"
            if !untrusted.isEmpty { message += " (ignored: \(untrusted.joined(separator: ", ")))" }
        } else if untrusted.isEmpty {
            message += "; the schema's folder and the current directory are not searched: pass --plugin-path DIR (or set \(PluginNames.searchPathVariable)) to add the folder holding it"
        } else {
            let folders = untrusted.map { FilePaths.directory(of: $0) }
            message += "; found \(untrusted.joined(separator: ", ")), in a folder that is not searched: pass "
                + folders.map { "--plugin-path \($0)" }.joined(separator: " or ") + " to trust it"
        }
        return message
    }
}

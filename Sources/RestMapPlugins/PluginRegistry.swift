import Foundation
import RestMapPluginKit

/// The transformers and body decoders available to a schema, by qualified name.
///
/// Build it before mapping (register in-process plugins, load plugins from disk), then share it:
/// it is an immutable value once built.
public struct PluginRegistry: Sendable {
    /// A registered plugin, as `restmap plugins` lists it.
    public struct PluginInfo: Sendable {
        public var name: String
        public var version: String
        /// Where it was loaded from; `nil` for a plugin linked in process.
        public var path: String?
        public var transformers: [TransformerDefinition]
        public var bodyDecoders: [BodyDecoderDefinition]
    }

    public private(set) var plugins: [PluginInfo] = []
    private var transformersByName: [String: TransformerDefinition] = [:]
    private var decodersByMediaType: [String: BodyDecoderDefinition] = [:]

    public init() {}

    /// Registers a plugin linked into this process under its own name.
    public mutating func register<Plugin: RestMapPlugin>(_ plugin: Plugin.Type) throws {
        try add(PluginInfo(
            name: Plugin.name, version: Plugin.version, path: nil,
            transformers: Plugin.transformers, bodyDecoders: Plugin.bodyDecoders))
    }

    /// Adds a plugin's definitions; a transformer name already taken is an error.
    public mutating func add(_ plugin: PluginInfo) throws {
        for definition in plugin.transformers {
            let qualified = plugin.name.isEmpty ? definition.name : "\(plugin.name).\(definition.name)"
            if transformersByName[qualified] != nil {
                throw PluginError.duplicateTransformer(name: qualified, plugin: plugin.name)
            }
            transformersByName[qualified] = definition
        }
        for decoder in plugin.bodyDecoders {
            decodersByMediaType[decoder.mediaType.lowercased()] = decoder
        }
        plugins.append(plugin)
    }

    /// The transformer with a qualified name such as `dates.rfc1123`.
    public func transformer(named qualifiedName: String) -> TransformerDefinition? {
        transformersByName[qualifiedName]
    }

    /// Every qualified transformer name, sorted.
    public var transformerNames: [String] { transformersByName.keys.sorted() }

    /// The body decoder for a media type (parameters such as `; charset=utf-8` are ignored).
    public func bodyDecoder(forMediaType mediaType: String) -> BodyDecoderDefinition? {
        let bare = mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? mediaType
        return decodersByMediaType[bare.lowercased()]
    }
}

/// Why a plugin could not be registered or loaded.
public enum PluginError: Error, Sendable, Equatable, CustomStringConvertible {
    case duplicateTransformer(name: String, plugin: String)

    public var description: String {
        switch self {
        case .duplicateTransformer(let name, let plugin):
            "plugin '\(plugin)' defines transformer '\(name)', which another plugin already defines"
        }
    }
}

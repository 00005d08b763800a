import FoundationEssentials
import RestMapPluginKit

/// The transformers and body decoders available to a schema, by qualified name.
///
/// Build it before mapping (register in-process plugins; `RestMapPluginLoader` adds loading them
/// from disk), then share it:
/// it is an immutable value once built. Every transformer it hands out, linked in process or
/// loaded, reports failures as `PluginError.transformerFailed`.
public struct PluginRegistry: Sendable {
    /// A registered plugin, as `restmap plugins` lists it.
    public struct PluginInfo: Sendable {
        /// The plugin's name: the namespace of its transformers.
        public var name: String
        /// The plugin's own version.
        public var version: String
        /// Where it was loaded from; `nil` for a plugin linked in process.
        public var path: String?
        /// Its transformers, by unqualified name.
        public var transformers: [TransformerDefinition]
        /// Its body decoders.
        public var bodyDecoders: [BodyDecoderDefinition]

        /// A plugin description.
        public init(
            name: String, version: String, path: String?,
            transformers: [TransformerDefinition], bodyDecoders: [BodyDecoderDefinition]
        ) {
            self.name = name
            self.version = version
            self.path = path
            self.transformers = transformers
            self.bodyDecoders = bodyDecoders
        }
    }

    /// The registered plugins, in registration order.
    public private(set) var plugins: [PluginInfo] = []
    private var transformersByName: [String: TransformerDefinition] = [:]
    private var decodersByMediaType: [String: BodyDecoderDefinition] = [:]

    /// An empty registry.
    public init() {}

    /// Registers a plugin linked into this process under its own name.
    public mutating func register<Plugin: RestMapPlugin>(_ plugin: Plugin.Type) throws(PluginError) {
        let qualify = { (name: String) in Plugin.name.isEmpty ? name : "\(Plugin.name).\(name)" }
        try add(PluginInfo(
            name: Plugin.name, version: Plugin.version, path: nil,
            transformers: Plugin.transformers.map { ReportingTransformer.wrap($0, qualifiedName: qualify($0.name)) },
            bodyDecoders: Plugin.bodyDecoders.map(ReportingTransformer.wrap)))
    }

    /// Adds a plugin's definitions; a transformer name already taken is an error, and then nothing
    /// of the plugin is added.
    public mutating func add(_ plugin: PluginInfo) throws(PluginError) {
        var added: [String: TransformerDefinition] = [:]
        for definition in plugin.transformers {
            let qualified = plugin.name.isEmpty ? definition.name : "\(plugin.name).\(definition.name)"
            if transformersByName[qualified] != nil || added[qualified] != nil {
                throw PluginError.duplicateTransformer(name: qualified, plugin: plugin.name)
            }
            added[qualified] = definition
        }
        transformersByName.merge(added) { first, _ in first }
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
        let bare = mediaType.split(separator: ";").first.map { $0.trimmingWhitespace() } ?? mediaType
        return decodersByMediaType[bare.lowercased()]
    }
}

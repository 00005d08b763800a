import CRestMapPluginABI
import FoundationEssentials
import Glibc
import RestMapPluginKit
import RestMapPlugins

/// Opens plugin libraries with `dlopen` and reads their ABI descriptor.
///
/// A library is opened only after `PluginTrust` accepted it: opening runs its code.
/// Images are never unloaded: transformers made from them may live as long as the process.
public enum PluginLoader {
    /// Loads the plugin library at `path` and describes it; its definitions call into the library.
    /// - Throws: `PluginError.untrusted` (before anything of the file runs) when the file or a
    ///   folder above it could have been written by someone other than the user or root.
    public static func load(path: String) throws(PluginError) -> PluginRegistry.PluginInfo {
        guard FileManager.default.fileExists(atPath: path) else {
            throw PluginError.notFound(
                name: PluginNames.pluginName(fromFileName: FilePaths.lastComponent(of: path)) ?? path,
                searched: [FilePaths.directory(of: path)])
        }
        let verified = try PluginTrust.verifiedPath(of: path)
        // Functions are bound when first called, as the program's own are: binding every function
        // of the libraries a plugin brings (Foundation and ICU for `dates`) at once costs more than
        // the process start. The ABI version check below refuses a plugin built for another ABI.
        guard let handle = dlopen(verified, RTLD_LAZY | RTLD_LOCAL) else {
            throw PluginError.notAPlugin(path: path, reason: dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        guard let symbol = dlsym(handle, RESTMAP_PLUGIN_ENTRY_SYMBOL) else {
            throw PluginError.notAPlugin(path: path, reason: "it does not export \(RESTMAP_PLUGIN_ENTRY_SYMBOL)")
        }
        let entry = unsafeBitCast(symbol, to: restmap_plugin_entry_fn.self)
        guard let descriptor = entry() else {
            throw PluginError.notAPlugin(path: path, reason: "\(RESTMAP_PLUGIN_ENTRY_SYMBOL) returned no descriptor")
        }
        // Only the first field is common to every ABI version: read it before anything else.
        let version = UnsafeRawPointer(descriptor).load(as: UInt32.self)
        guard version == UInt32(RESTMAP_PLUGIN_ABI_VERSION) else {
            throw PluginError.abiMismatch(path: path, expected: UInt32(RESTMAP_PLUGIN_ABI_VERSION), found: version)
        }
        return try describe(PluginImage(descriptor: descriptor, path: path))
    }

    private static func describe(_ image: PluginImage) throws(PluginError) -> PluginRegistry.PluginInfo {
        let descriptor = image.descriptor.pointee
        guard let namePointer = descriptor.name, descriptor.make_transformer != nil, descriptor.transform != nil,
              descriptor.reverse_transform != nil, descriptor.destroy_transformer != nil,
              descriptor.decode_body != nil, descriptor.free_buffer != nil
        else {
            throw PluginError.notAPlugin(path: image.path, reason: "its descriptor lacks a name or a function")
        }
        let name = String(cString: namePointer)
        let transformers = (0..<descriptor.transformer_count).map { index in
            let entry = descriptor.transformers[index]
            let unqualified = string(entry.name)
            let qualified = name.isEmpty ? unqualified : "\(name).\(unqualified)"
            return TransformerDefinition(
                name: unqualified, summary: string(entry.summary),
                arguments: arguments(entry.arguments, count: entry.argument_count),
                make: { arguments in try LoadedTransformer.make(image, index: index, qualifiedName: qualified, arguments: arguments) })
        }
        let decoders = (0..<descriptor.body_decoder_count).map { index in
            let entry = descriptor.body_decoders[index]
            let mediaType = string(entry.media_type)
            return BodyDecoderDefinition(
                mediaType: mediaType, summary: string(entry.summary),
                arguments: arguments(entry.arguments, count: entry.argument_count),
                decode: { body, arguments in try decode(image, index: index, mediaType: mediaType, body: body, arguments: arguments) })
        }
        return PluginRegistry.PluginInfo(
            name: name, version: string(descriptor.version), path: image.path,
            transformers: transformers, bodyDecoders: decoders)
    }

    private static func decode(
        _ image: PluginImage, index: Int, mediaType: String, body: [UInt8], arguments: [String: Value]
    ) throws(PluginError) -> [UInt8] {
        let descriptor = image.descriptor.pointee
        var json = CValueBridge.json(fromArguments: arguments)
        var output = restmap_buffer()
        var error = restmap_buffer()
        let status = json.withUTF8 { jsonBytes in
            body.withUnsafeBufferPointer { bodyBytes in
                jsonBytes.withMemoryRebound(to: CChar.self) { jsonText in
                    descriptor.decode_body(
                        descriptor.context, index, bodyBytes.baseAddress, bodyBytes.count,
                        jsonText.baseAddress, jsonText.count, &output, &error)
                }
            }
        }
        guard status == RESTMAP_STATUS_OK else {
            throw PluginError.bodyDecoderFailed(mediaType: mediaType, message: image.take(error))
        }
        defer { descriptor.free_buffer(output.bytes) }
        guard let bytes = output.bytes else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: output.length))
    }

    private static func arguments(_ table: UnsafePointer<restmap_argument_descriptor>?, count: Int) -> [ArgumentSpec] {
        guard let table else { return [] }
        return (0..<count).map { index in
            let entry = table[index]
            return ArgumentSpec(
                string(entry.name), ArgumentSpec.Kind(abiCode: entry.kind),
                required: entry.required != 0, summary: string(entry.summary))
        }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}

/// A loaded plugin image: its descriptor, valid for the life of the process.
final class PluginImage: @unchecked Sendable {
    // Unchecked: the descriptor is immutable and never freed, and the ABI requires its calls to
    // be safe from any thread.
    let descriptor: UnsafePointer<restmap_plugin_descriptor>
    let path: String

    init(descriptor: UnsafePointer<restmap_plugin_descriptor>, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// The message in a plugin-allocated error buffer, which is then released.
    func take(_ buffer: restmap_buffer) -> String {
        defer { descriptor.pointee.free_buffer(buffer.bytes) }
        return CValueBridge.string(from: buffer)
    }
}

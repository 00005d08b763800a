import CRestMapPluginABI
import FoundationEssentials
import Glibc
import Synchronization

/// The ABI descriptor of a plugin, for its exported entry symbol. Write this one line in the
/// plugin's dynamic library target:
///
/// ```swift
/// @_cdecl("restmap_plugin_entry_v1")
/// public func restmapPluginEntry() -> UnsafeRawPointer { exportPlugin(DatesPlugin.self) }
/// ```
///
/// The descriptor is built on the first call and lives as long as the process.
public func exportPlugin<Plugin: RestMapPlugin>(_ plugin: Plugin.Type) -> UnsafeRawPointer {
    let address = exportedDescriptors.withLock { descriptors in
        if let address = descriptors[ObjectIdentifier(plugin)] { return address }
        let address = UInt(bitPattern: ExportedPlugin(plugin).makeDescriptor())
        descriptors[ObjectIdentifier(plugin)] = address
        return address
    }
    return UnsafeRawPointer(bitPattern: address)!
}

/// Descriptor addresses by plugin type: one descriptor per plugin per process.
private let exportedDescriptors = Mutex<[ObjectIdentifier: UInt]>([:])

/// A plugin's definitions, reachable from the descriptor's context pointer (retained forever).
private final class ExportedPlugin: Sendable {
    let name: String
    let version: String
    let transformers: [TransformerDefinition]
    let bodyDecoders: [BodyDecoderDefinition]

    init<Plugin: RestMapPlugin>(_ plugin: Plugin.Type) {
        name = Plugin.name
        version = Plugin.version
        transformers = Plugin.transformers
        bodyDecoders = Plugin.bodyDecoders
    }

    func makeDescriptor() -> UnsafeRawPointer {
        let transformerTable = UnsafeMutablePointer<restmap_transformer_descriptor>.allocate(capacity: max(1, transformers.count))
        for (index, definition) in transformers.enumerated() {
            let (count, arguments) = Self.argumentTable(definition.arguments)
            (transformerTable + index).initialize(to: restmap_transformer_descriptor(
                name: strdup(definition.name), summary: strdup(definition.summary),
                argument_count: count, arguments: arguments))
        }
        let decoderTable = UnsafeMutablePointer<restmap_body_decoder_descriptor>.allocate(capacity: max(1, bodyDecoders.count))
        for (index, definition) in bodyDecoders.enumerated() {
            let (count, arguments) = Self.argumentTable(definition.arguments)
            (decoderTable + index).initialize(to: restmap_body_decoder_descriptor(
                media_type: strdup(definition.mediaType), summary: strdup(definition.summary),
                argument_count: count, arguments: arguments))
        }
        let descriptor = UnsafeMutablePointer<restmap_plugin_descriptor>.allocate(capacity: 1)
        descriptor.initialize(to: restmap_plugin_descriptor(
            abi_version: UInt32(RESTMAP_PLUGIN_ABI_VERSION),
            name: strdup(name),
            version: strdup(version),
            transformer_count: transformers.count,
            transformers: transformerTable,
            body_decoder_count: bodyDecoders.count,
            body_decoders: decoderTable,
            context: Unmanaged.passRetained(self).toOpaque(),
            make_transformer: exportedMakeTransformer,
            transform: exportedTransform,
            reverse_transform: exportedReverseTransform,
            destroy_transformer: exportedDestroyTransformer,
            decode_body: exportedDecodeBody,
            free_buffer: exportedFreeBuffer))
        return UnsafeRawPointer(descriptor)
    }

    private static func argumentTable(_ specs: [ArgumentSpec]) -> (Int, UnsafePointer<restmap_argument_descriptor>) {
        let table = UnsafeMutablePointer<restmap_argument_descriptor>.allocate(capacity: max(1, specs.count))
        for (index, spec) in specs.enumerated() {
            (table + index).initialize(to: restmap_argument_descriptor(
                name: strdup(spec.name), kind: spec.kind.abiCode, required: spec.isRequired ? 1 : 0,
                summary: strdup(spec.summary)))
        }
        return (specs.count, UnsafePointer(table))
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> ExportedPlugin {
        Unmanaged<ExportedPlugin>.fromOpaque(context!).takeUnretainedValue()
    }
}

/// A configured transformer instance, behind the ABI's opaque instance pointer.
private final class ExportedTransformer: Sendable {
    let transformer: any ValueTransformer
    /// The transformer when it reads a string's UTF-8 in place (cast once, not per call).
    let utf8Transformer: (any UTF8StringTransformer)?
    init(_ transformer: any ValueTransformer) {
        self.transformer = transformer
        utf8Transformer = transformer as? any UTF8StringTransformer
    }

    static func from(_ instance: UnsafeMutableRawPointer?) -> ExportedTransformer {
        Unmanaged<ExportedTransformer>.fromOpaque(instance!).takeUnretainedValue()
    }
}

/// Writes an error's message into an ABI error buffer and returns the error status.
private func report(_ error: any Error, into buffer: UnsafeMutablePointer<restmap_buffer>?) -> Int32 {
    let message = (error as? TransformerError)?.message ?? String(describing: error)
    buffer?.pointee = CValueBridge.buffer(message.utf8)
    return RESTMAP_STATUS_ERROR
}

private func exportedMakeTransformer(
    context: UnsafeMutableRawPointer?, index: Int, arguments: UnsafePointer<CChar>?, argumentsLength: Int,
    instance: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, errorBuffer: UnsafeMutablePointer<restmap_buffer>?
) -> Int32 {
    let plugin = ExportedPlugin.from(context)
    guard plugin.transformers.indices.contains(index) else {
        return report(TransformerError("no transformer at index \(index)"), into: errorBuffer)
    }
    do {
        let parsed = try CValueBridge.arguments(fromJSON: arguments, length: argumentsLength)
        let transformer = try plugin.transformers[index].make(parsed)
        instance?.pointee = Unmanaged.passRetained(ExportedTransformer(transformer)).toOpaque()
        return RESTMAP_STATUS_OK
    } catch {
        return report(error, into: errorBuffer)
    }
}

private func exportedTransform(
    instance: UnsafeMutableRawPointer?, input: UnsafePointer<restmap_value>?,
    output: UnsafeMutablePointer<restmap_value>?, errorBuffer: UnsafeMutablePointer<restmap_buffer>?
) -> Int32 {
    do {
        let exported = ExportedTransformer.from(instance)
        let value = input!.pointee
        let result: Value
        if value.kind == RESTMAP_VALUE_STRING.rawValue, let utf8Transformer = exported.utf8Transformer {
            // A string's bytes are read where they are, not made a `String` first.
            result = try utf8Transformer.transform(stringUTF8: UnsafeBufferPointer(
                start: UnsafeRawPointer(value.text)?.assumingMemoryBound(to: UInt8.self), count: value.length))
        } else {
            result = try exported.transformer.transform(try CValueBridge.value(from: value))
        }
        CValueBridge.fill(output!, with: result)
        return RESTMAP_STATUS_OK
    } catch {
        return report(error, into: errorBuffer)
    }
}

private func exportedReverseTransform(
    instance: UnsafeMutableRawPointer?, input: UnsafePointer<restmap_value>?,
    output: UnsafeMutablePointer<restmap_value>?, errorBuffer: UnsafeMutablePointer<restmap_buffer>?
) -> Int32 {
    do {
        let value = try CValueBridge.value(from: input!.pointee)
        let result = try ExportedTransformer.from(instance).transformer.reverseTransform(value)
        CValueBridge.fill(output!, with: result)
        return RESTMAP_STATUS_OK
    } catch {
        return report(error, into: errorBuffer)
    }
}

private func exportedDestroyTransformer(instance: UnsafeMutableRawPointer?) {
    guard let instance else { return }
    Unmanaged<ExportedTransformer>.fromOpaque(instance).release()
}

private func exportedDecodeBody(
    context: UnsafeMutableRawPointer?, index: Int, body: UnsafePointer<UInt8>?, bodyLength: Int,
    arguments: UnsafePointer<CChar>?, argumentsLength: Int,
    output: UnsafeMutablePointer<restmap_buffer>?, errorBuffer: UnsafeMutablePointer<restmap_buffer>?
) -> Int32 {
    let plugin = ExportedPlugin.from(context)
    guard plugin.bodyDecoders.indices.contains(index) else {
        return report(TransformerError("no body decoder at index \(index)"), into: errorBuffer)
    }
    do {
        let parsed = try CValueBridge.arguments(fromJSON: arguments, length: argumentsLength)
        let bytes = Array(UnsafeBufferPointer(start: body, count: bodyLength))
        let decoded = try plugin.bodyDecoders[index].decode(bytes, parsed)
        output?.pointee = CValueBridge.buffer(decoded)
        return RESTMAP_STATUS_OK
    } catch {
        return report(error, into: errorBuffer)
    }
}

private func exportedFreeBuffer(bytes: UnsafeMutableRawPointer?) {
    free(bytes)
}

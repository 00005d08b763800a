import CRestMapPluginABI
import RestMapPluginKit

/// A transformer instance living in a loaded plugin, called through the C ABI.
final class LoadedTransformer: ValueTransformer, @unchecked Sendable {
    // Unchecked: the fields never change after init, and the ABI requires instances to be safe
    // to call from many threads at once.
    private let image: PluginImage
    private let instance: UnsafeMutableRawPointer
    private let qualifiedName: String

    private init(image: PluginImage, instance: UnsafeMutableRawPointer, qualifiedName: String) {
        self.image = image
        self.instance = instance
        self.qualifiedName = qualifiedName
    }

    deinit {
        image.descriptor.pointee.destroy_transformer(instance)
    }

    /// Makes an instance of the image's transformer at `index`, passing the arguments as JSON text.
    static func make(
        _ image: PluginImage, index: Int, qualifiedName: String, arguments: [String: Value]
    ) throws(PluginError) -> LoadedTransformer {
        let descriptor = image.descriptor.pointee
        var json = CValueBridge.json(fromArguments: arguments)
        var instance: UnsafeMutableRawPointer?
        var error = restmap_buffer()
        let status = json.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                descriptor.make_transformer(descriptor.context, index, text.baseAddress, text.count, &instance, &error)
            }
        }
        guard status == RESTMAP_STATUS_OK, let instance else {
            throw PluginError.transformerFailed(transformer: qualifiedName, message: image.take(error))
        }
        return LoadedTransformer(image: image, instance: instance, qualifiedName: qualifiedName)
    }

    func transform(_ value: Value) throws -> Value {
        try call(image.descriptor.pointee.transform, value)
    }

    func reverseTransform(_ value: Value) throws -> Value {
        try call(image.descriptor.pointee.reverse_transform, value)
    }

    private typealias Call = @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<restmap_value>?, UnsafeMutablePointer<restmap_value>?,
        UnsafeMutablePointer<restmap_buffer>?
    ) -> Int32

    @inline(__always)
    private func call(_ function: Call?, _ value: Value) throws(PluginError) -> Value {
        var output = restmap_value()
        var error = restmap_buffer()
        let status = CValueBridge.withCValue(value) { input in function!(instance, input, &output, &error) }
        guard status == RESTMAP_STATUS_OK else {
            throw PluginError.transformerFailed(transformer: qualifiedName, message: image.take(error))
        }
        defer { image.descriptor.pointee.free_buffer(UnsafeMutableRawPointer(mutating: output.text)) }
        do {
            return try CValueBridge.value(from: output)
        } catch {
            throw PluginError.transformerFailed(transformer: qualifiedName, message: error.message)
        }
    }
}

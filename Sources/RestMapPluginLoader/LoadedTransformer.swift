import CRestMapPluginABI
import RestMapPluginKit
import RestMapPlugins

/// A transformer instance living in a loaded plugin, called through the C ABI.
final class LoadedTransformer: UTF8StringTransformer, @unchecked Sendable {
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
        try call { output, error in
            CValueBridge.withCValue(value) { input in function!(instance, input, output, error) }
        }
    }

    /// Calls the transformer with the string's bytes as they are (no `String` is made).
    func transform(stringUTF8 utf8: UnsafeBufferPointer<UInt8>) throws -> Value {
        var input = restmap_value()
        input.kind = RESTMAP_VALUE_STRING.rawValue
        input.text = UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self)
        input.length = utf8.count
        let transform = image.descriptor.pointee.transform
        return try call { output, error in transform!(instance, &input, output, error) }
    }

    /// Runs one ABI call (`invoke` fills the output and error) and reads its output.
    @inline(__always)
    private func call(
        _ invoke: (UnsafeMutablePointer<restmap_value>, UnsafeMutablePointer<restmap_buffer>) -> Int32
    ) throws(PluginError) -> Value {
        var output = restmap_value()
        var error = restmap_buffer()
        let status = invoke(&output, &error)
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

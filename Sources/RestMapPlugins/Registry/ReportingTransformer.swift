import RestMapPluginKit

/// Wraps an in-process transformer so that it fails like a loaded one: with
/// `PluginError.transformerFailed` carrying the plugin's message.
struct ReportingTransformer: ValueTransformer {
    let base: any ValueTransformer
    let qualifiedName: String

    func transform(_ value: Value) throws -> Value {
        do { return try base.transform(value) } catch { throw failure(error, qualifiedName) }
    }

    func reverseTransform(_ value: Value) throws -> Value {
        do { return try base.reverseTransform(value) } catch { throw failure(error, qualifiedName) }
    }

    static func wrap(_ definition: TransformerDefinition, qualifiedName: String) -> TransformerDefinition {
        var wrapped = definition
        wrapped.make = { arguments in
            do {
                return ReportingTransformer(base: try definition.make(arguments), qualifiedName: qualifiedName)
            } catch {
                throw failure(error, qualifiedName)
            }
        }
        return wrapped
    }

    static func wrap(_ definition: BodyDecoderDefinition) -> BodyDecoderDefinition {
        var wrapped = definition
        wrapped.decode = { body, arguments in
            do {
                return try definition.decode(body, arguments)
            } catch {
                if error is PluginError { throw error }
                let message = (error as? TransformerError)?.message ?? String(describing: error)
                throw PluginError.bodyDecoderFailed(mediaType: definition.mediaType, message: message)
            }
        }
        return wrapped
    }
}

/// The `PluginError` for an error a transformer threw.
private func failure(_ error: any Error, _ qualifiedName: String) -> any Error {
    if error is PluginError { return error }
    let message = (error as? TransformerError)?.message ?? String(describing: error)
    return PluginError.transformerFailed(transformer: qualifiedName, message: message)
}

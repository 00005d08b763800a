import RestMapJSON
import RestMapSchema

extension Mapper {
    /// Maps a response and reads more key paths from the same document (a page count, a next
    /// cursor), so the body is parsed once. A value is `nil` when its key path holds nothing.
    public func map(_ response: Response, options: MappingOptions = .init(), extracting keyPaths: [MappingKeyPath])
        throws(MappingFailure) -> (result: MappingResult, values: [Value?]) {
        guard !keyPaths.isEmpty else { return (try map(response, options: options), []) }
        let (result, document) = try mapKeepingDocument(response, options: options)
        return (result, document.map { values(at: keyPaths, in: $0, response: response) } ?? keyPaths.map { _ in nil })
    }

    /// Reads key paths from a response body (decoded by its media type) without mapping it: a
    /// login response's token, for example.
    public func values(at keyPaths: [MappingKeyPath], in response: Response) throws(MappingFailure) -> [Value?] {
        values(at: keyPaths, in: try parse(response), response: response)
    }

    private func values(at keyPaths: [MappingKeyPath], in document: JSONDocument, response: Response) -> [Value?] {
        guard !keyPaths.isEmpty else { return [] }
        let scope = EvaluationScope(
            representations: [document.root], root: document.root,
            metadata: metadata(of: response),
            collectionIndex: nil, rootKeyPath: "")
        return keyPaths.map { path in
            let value = KeyPathEvaluator.evaluate(path, in: scope).value
            if case .null? = value { return nil }
            return value
        }
    }
}

import RestMapJSON

/// One way of mapping a whole response body into a `MappingResult`. `Mapper.map` picks one per
/// response (`Mapper.strategy(for:options:)`); every strategy gives the same records, order,
/// merges and errors as the one-thread `WholeDocumentMapping`.
///
/// The strategies, each in its own file:
/// - `SplitBodyMapping`: a large body that is one array of one descriptor's representations, cut
///   into parts mapped on `options.jobs` threads (`OrderedWorkers`) and merged by the session
///   on the same threads (`MappingSession.merge`); a body it turns out not to be able to cut goes to
///   `WholeDocumentMapping`;
/// - `WholeDocumentMapping`: the body parsed into one document and mapped on the calling thread.
///
/// A body mapped in bounded memory is the stream's business (`Mapper.mapStream` and
/// `Mapper.streamBatches` in `StreamMapping.swift`), which maps element by element on the same
/// thread pool and delivers batches instead of one result.
protocol MappingStrategy {
    func map(_ response: MatchedResponse, options: MappingOptions) throws(MappingFailure) -> MappingResult
}

extension Mapper {
    /// The strategy for a response with a body.
    func strategy(for response: MatchedResponse, options: MappingOptions) -> any MappingStrategy {
        SplitBodyMapping(response, bodyByteCount: response.response.body.count, mapper: self, options: options) ?? WholeDocumentMapping(mapper: self)
    }
}

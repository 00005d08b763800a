import RestMapJSON
import RestMapPlugins
import RestMapSchema

/// The interpreter: maps responses to records and records to request bodies, as a schema says.
///
/// Build one per schema and share it: it is immutable and `Sendable`, and `map` may run from
/// many tasks at once.
///
/// `map` is the front door for a response held whole: it works out what the schema says of the
/// response (`MatchedResponse`), then maps it with the strategy that fits it
/// (`MappingStrategy`: a large array split across threads, else one document on one thread).
/// `mapStream` maps a body in bounded memory, and `RecordWriter.writeStream` writes what it maps.
public struct Mapper: Sendable {
    let plan: MappingPlan

    /// Compiles a validated schema against the plugins that provide its transformers.
    public init(schema: Schema, plugins: PluginRegistry = PluginRegistry()) throws(SchemaCompilationError) {
        var registry = plugins
        registry.registerBuiltins()
        plan = try MappingPlan(schema: schema, plugins: registry)
    }

    init(plan: MappingPlan) {
        self.plan = plan
    }

    /// The mapper of thread `index` of a pool (`OrderedWorkers`), made on that thread: this one
    /// for the first; for the others the same schema compiled into a plan of their own (timed as
    /// `map`), so threads mapping side by side do not update the reference counts of one shared
    /// plan (measured: that sharing cost a fifth more CPU on two cores). This mapper itself when
    /// compiling fails.
    func forThread(_ index: Int, profile: StageProfile?) -> Mapper {
        index == 0 ? self : profile.measure(.map) { Mapper(plan: plan.compiledAgain()) }
    }

    /// The schema this mapper interprets.
    public var schema: Schema { plan.schema }

    /// Routes and path interpolation of the schema.
    public var router: Router { Router(plan: plan) }

    /// Maps a response.
    ///
    /// - Returns: the records, per key path and flat, with an error for each record that failed.
    /// - Throws: `MappingFailure` when the body is malformed, nothing was mappable, the response
    ///   is an error response, or (`strict`) any record failed.
    public func map(_ response: Response, options: MappingOptions = .init()) throws(MappingFailure) -> MappingResult {
        let matched = match(response)
        if let empty = try emptyBodyResult(matched) { return empty }
        return try strategy(for: matched, options: options).map(matched, options: options)
    }

    /// Maps a response whose body is the bytes of a regular file (`file`; `response.body` is not
    /// read) as `map` maps the same bytes held in `response.body`, when `map` would split the body
    /// (a JSON array of at least `smallestSplitBody` bytes, mapped by one descriptor): the mapping
    /// threads read and parse its parts themselves, so the body is never held whole and nobody
    /// reads it all before mapping starts.
    ///
    /// - Returns: `nil` for any other body, and for one a part of which does not read or parse:
    ///   read the body and call `map`, which maps it or reports what is wrong.
    package func map(_ response: Response, bodyIn file: JSONPositionalBytes,
                     options: MappingOptions = .init()) throws(MappingFailure) -> MappingResult? {
        let matched = match(response)
        guard let strategy = SplitBodyMapping(matched, bodyByteCount: file.count(), mapper: self, options: options) else { return nil }
        return try strategy.mapFile(file, response: matched, options: options)
    }

    /// The smallest body `map` splits into parts (and `map(_:bodyIn:options:)` reads in parts).
    package static var smallestSplitBody: Int { SplitBodyMapping.smallestBody }

    /// Maps a response on one thread and also returns the document it parsed (`nil` for an empty
    /// body), for a dry run or an extraction to walk without parsing the body again.
    func mapKeepingDocument(_ response: Response, options: MappingOptions) throws(MappingFailure)
        -> (result: MappingResult, document: JSONDocument?) {
        let matched = match(response)
        if let empty = try emptyBodyResult(matched) { return (empty, nil) }
        let (result, document) = try WholeDocumentMapping(mapper: self).mapKeepingDocument(matched, options: options)
        return (result, document)
    }

    /// The result of a response whose body is empty (or whitespace): no records, or an error for
    /// an error response; `nil` when the body holds something.
    private func emptyBodyResult(_ matched: MatchedResponse) throws(MappingFailure) -> MappingResult? {
        guard matched.response.body.allSatisfy(isJSONWhitespace) else { return nil }
        if matched.isError { throw .unprocessableErrorResponse(status: matched.response.status, body: matched.response.body) }
        return MappingResult(keyPaths: [], records: [], errors: [], routingParameters: matched.parameters, graph: nil)
    }
}

extension MappingPlan {
    /// The same schema compiled into a plan of its own, for another thread; this plan when
    /// compiling fails.
    func compiledAgain() -> MappingPlan {
        (try? MappingPlan(schema: schema, plugins: plugins)) ?? self
    }
}

import Foundation
import HTTPTypes
import RestMap
import RestMapSchema

/// One page of a collection.
public struct Page: Sendable {
    /// 1 for the first page fetched.
    public var number: Int
    public var response: ClientResponse
    /// Set on the last page: why no page follows.
    public var stopReason: StopReason?
    /// The URL of the page that follows, when one does and is known (pages fetched one at a
    /// time), also when the run stops at a page limit: where a later run goes on
    /// (`pages(route:…resumingAt:)`).
    public var nextURL: String? = nil
    /// The values at the key paths the caller asked to extract (`pages(…extracting:)`), in order.
    public var extracted: [Value?] = []

    /// The page's root records.
    public var records: [Record] { response.result.records }
}

/// The pages of a collection, in order, as they arrive; the last one carries the stop reason.
/// Ending the iteration early (or cancelling its task) cancels the requests still running.
/// Errors are `ClientError`s.
///
/// A page is handed over only when the iteration asks for it, so the fetcher stays at most a page
/// or two (the one it maps, the one it reads ahead) before a slow consumer, never the whole
/// collection in memory.
public struct PageSequence: AsyncSequence, Sendable {
    public typealias Element = Page
    /// Starts fetching, handing over a page for each value of the demand stream: nothing is
    /// requested until the sequence is iterated, so reading `firstURL` alone (as
    /// `get --offline` does) never reaches the network.
    let start: @Sendable (AsyncStream<Void>) -> AsyncThrowingStream<Page, any Error>
    /// The URL of the first page (what a store keeps the answer under); `nil` when the route
    /// cannot be resolved.
    public let firstURL: String?

    public func makeAsyncIterator() -> Iterator {
        let (demands, demand) = AsyncStream<Void>.makeStream()
        return Iterator(pages: start(demands).makeAsyncIterator(), demand: demand)
    }

    /// Asks the fetcher for one page per `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: AsyncThrowingStream<Page, any Error>.AsyncIterator
        let demand: AsyncStream<Void>.Continuation

        public mutating func next() async throws -> Page? {
            demand.yield()
            return try await pages.next()
        }
    }
}

extension RestClient {
    /// The pages of a named route, with the route's pagination, else the schema's.
    /// - Parameters:
    ///   - maxPages: stop after this many pages (the smaller of this and the schema's `maxPages`);
    ///     when neither gives one, `configuration.maxPages` caps the run (`StopReason.pageCap`).
    ///   - concurrency: pages fetched at once when the page count is known up front (kinds
    ///     page and offset); pages are still delivered in order.
    public func pages(route name: String, parameters: [String: String] = [:], query: [String: String] = [:],
                      headers: HTTPFields = [:], maxPages: Int? = nil, concurrency: Int = 1,
                      resumingAt resume: PageResumePoint? = nil, extracting: [MappingKeyPath] = []) -> PageSequence {
        let named = mapper.schema.routes.first { $0.name == name }
        let start: Result<(String, String), ClientError>
        do {
            let route = try mapper.router.route(named: name, parameters: parameters)
            start = .success((route.method, route.path))
        } catch {
            start = .failure(.invalidRequest(error.description))
        }
        let pagination = named?.pagination ?? mapper.schema.pagination
        return pages(start: start, pagination: named == nil ? nil : pagination, parameters: parameters, query: query,
                     headers: headers.dictionary, maxPages: maxPages, concurrency: concurrency, resume: resume, extracting: extracting)
    }

    /// The pages of a path relative to the base URL, with the pagination of the named route whose
    /// pattern matches it, else the schema's.
    public func pages(path: String, query: [String: String] = [:], headers: HTTPFields = [:],
                      maxPages: Int? = nil, concurrency: Int = 1) -> PageSequence {
        let pathOnly = String(path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let named = mapper.schema.routes.first { $0.method == "GET" && $0.pattern.match(pathOnly[...]) != nil }
        let parameters = named?.pattern.match(pathOnly[...]) ?? [:]
        return pages(start: .success(("GET", path)), pagination: named?.pagination ?? mapper.schema.pagination,
                     parameters: parameters, query: query, headers: headers.dictionary, maxPages: maxPages, concurrency: concurrency)
    }

    private func pages(start: Result<(String, String), ClientError>, pagination: Pagination?, parameters: [String: String],
                       query: [String: String], headers: [String: String], maxPages: Int?, concurrency: Int,
                       resume: PageResumePoint? = nil, extracting: [MappingKeyPath] = []) -> PageSequence {
        let given = [maxPages, pagination?.maxPages].compactMap { $0 }.min()
        let limit = PageLimit(count: given ?? configuration.maxPages, isDefaultCap: given == nil)
        let firstURL = (try? start.get()).flatMap { _, path in
            try? Pager(client: self, pagination: pagination, method: "GET", path: path, parameters: parameters,
                       query: query, headers: headers, limit: limit, concurrency: 1).pageURL(number: 1, cursor: nil)
        }
        return PageSequence(start: { demands in AsyncThrowingStream<Page, any Error> { continuation in
            let task = Task {
                do {
                    var demand = demands.makeAsyncIterator()
                    let (method, path) = try start.get()
                    var pager = Pager(client: self, pagination: pagination, method: method, path: path, parameters: parameters,
                                      query: query, headers: headers, limit: limit, concurrency: resume == nil ? max(1, concurrency) : 1)
                    pager.resume = resume
                    pager.extracting = extracting
                    try await pager.run { page in
                        // Wait until the consumer asks; a consumer gone (the task cancelled) ends the run.
                        guard await demand.next() != nil else { throw CancellationError() }
                        continuation.yield(page)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        } }, firstURL: firstURL)
    }
}

/// Where an interrupted run of pages goes on: the URL of the next page and its number.
public struct PageResumePoint: Sendable, Hashable, Codable {
    /// The next page's URL (`Page.nextURL` of the last page received).
    public var url: String
    /// Its page number (the last page's number + 1).
    public var number: Int

    public init(url: String, number: Int) {
        self.url = url
        self.number = number
    }
}

/// The most pages one run fetches, and whether it is the configuration's default cap rather than
/// a limit the caller or the schema gave.
struct PageLimit {
    var count: Int
    var isDefaultCap: Bool

    /// Why a run stopped at this limit with more pages to come.
    var stopReason: StopReason { isDefaultCap ? .pageCap(count) : .maxPages(count) }
}

/// Fetches pages one after another (or a window at a time when the count is known) and decides
/// after each why to stop.
struct Pager {
    let client: RestClient
    let pagination: Pagination?
    let method: String
    let path: String
    let parameters: [String: String]
    let query: [String: String]
    let headers: [String: String]
    let limit: PageLimit
    /// Where the run starts instead of the first page.
    var resume: PageResumePoint?
    /// Key paths whose values each page carries in `Page.extracted`.
    var extracting: [MappingKeyPath] = []
    let concurrency: Int

    /// The key paths read from every page, and their positions in `values`.
    let keyPaths: [MappingKeyPath]
    private let fields: [String: Int]

    /// Page size learned from the body when the schema gives none.
    private var learnedPageSize: Int?
    private var recordsSoFar = 0
    private var seenCursors: Set<String> = []
    private var seenURLs: Set<String> = []

    init(client: RestClient, pagination: Pagination?, method: String, path: String, parameters: [String: String],
         query: [String: String], headers: [String: String], limit: PageLimit, concurrency: Int) {
        self.client = client
        self.pagination = pagination
        self.method = method
        self.path = path
        self.parameters = parameters
        self.query = query
        self.headers = headers
        self.limit = limit
        self.concurrency = concurrency
        var keyPaths: [MappingKeyPath] = []
        var fields: [String: Int] = [:]
        if let pagination {
            let named: [(String, MappingKeyPath?)] = [
                ("perPage", pagination.perPage), ("currentPage", pagination.currentPage), ("pageCount", pagination.pageCount),
                ("objectCount", pagination.objectCount), ("cursor", pagination.cursor), ("next", pagination.next),
            ]
            for case let (name, path?) in named {
                fields[name] = keyPaths.count
                keyPaths.append(path)
            }
        }
        self.keyPaths = keyPaths
        self.fields = fields
    }

    mutating func run(_ deliver: (Page) async throws -> Void) async throws {
        guard let pagination else {
            let response = try await fetch(url: client.url(for: path, query: query))
            try await deliver(Page(number: 1, response: response, stopReason: .notPaginated,
                         extracted: Array(response.values.suffix(extracting.count))))
            return
        }
        var url = try resume?.url ?? pageURL(number: 1, cursor: nil)
        var number = resume?.number ?? 1
        var exchange = try await receive(url: url)
        /// The page count the first page told (page and offset kinds).
        var pageCount: Int?
        while true {
            seenURLs.insert(url)
            // When the answer already names the next page, its request goes out while this page is mapped.
            let (client, method, parameters, headers) = (client, method, parameters, headers)
            let ahead = nextURLBeforeMapping(number: number, exchange: exchange, pageCount: pageCount).map { next in
                (url: next, task: Task { try await client.receive(method: method, url: next, parameters: parameters, headers: headers) })
            }
            let response: ClientResponse
            do { response = try await client.map(exchange, extracting: keyPaths + extracting) } catch {
                ahead?.task.cancel()
                throw error
            }
            let (stop, next) = decide(number: number, response: response)
            do {
                try await deliver(Page(number: number, response: response, stopReason: stop, nextURL: next,
                                       extracted: Array(response.values.suffix(extracting.count))))
            } catch {
                ahead?.task.cancel()
                throw error
            }
            guard stop == nil, let next else {
                ahead?.task.cancel()
                return
            }
            if number == 1, [.page, .offset].contains(pagination.kind), let total = knownPageCount(response) {
                if concurrency > 1 {
                    try await runConcurrently(from: 2, through: min(total, limit.count), of: total, deliver)
                    return
                }
                pageCount = total
            }
            url = next
            number += 1
            if let ahead, ahead.url == next {
                exchange = try await withTaskCancellationHandler { try await ahead.task.value } onCancel: { ahead.task.cancel() }
            } else {
                ahead?.task.cancel()
                exchange = try await receive(url: next)
            }
        }
    }

    /// The next page's URL when the answer's headers (`Link: <…>; rel="next"`) or the first page's
    /// page count already tell it, checked as `decide` checks it; `nil` when only mapping the page tells.
    private func nextURLBeforeMapping(number: Int, exchange: Exchange, pageCount: Int?) -> String? {
        guard let pagination, (200..<300).contains(exchange.raw.status), number < limit.count else { return nil }
        switch pagination.kind {
        case .link:
            guard let target = exchange.raw.header("Link").flatMap({ LinkHeader.target(rel: "next", in: $0) }), !target.isEmpty,
                  let resolved = URL(string: target, relativeTo: URL(string: client.redact(exchange.raw.url)))?.absoluteString,
                  !seenURLs.contains(resolved), let parsed = URL(string: resolved), client.credentials.admits(parsed) else { return nil }
            return resolved
        case .page, .offset:
            guard let pageCount, number < pageCount else { return nil }
            return try? pageURL(number: number + 1, cursor: nil)
        case .cursor:
            return nil
        }
    }

    /// Pages `first...last` of `total` with up to `concurrency` requests at once, delivered in order.
    private mutating func runConcurrently(from first: Int, through last: Int, of total: Int,
                                          _ deliver: (Page) async throws -> Void) async throws {
        guard first <= last else { return }
        let urls = try (first...last).map { try pageURL(number: $0, cursor: nil) }
        let fetcher = self
        try await withThrowingTaskGroup(of: (Int, ClientResponse).self) { group in
            var nextToStart = first
            var nextToDeliver = first
            var arrived: [Int: ClientResponse] = [:]
            func start() {
                guard nextToStart <= last else { return }
                let number = nextToStart, url = urls[number - first]
                group.addTask { (number, try await fetcher.fetch(url: url)) }
                nextToStart += 1
            }
            for _ in 0..<concurrency { start() }
            while let (number, response) = try await group.next() {
                arrived[number] = response
                while let ready = arrived.removeValue(forKey: nextToDeliver) {
                    var (stop, _) = decide(number: nextToDeliver, response: ready)
                    if stop == nil, nextToDeliver == last { stop = last < total ? limit.stopReason : .lastPage(pageCount: last) }
                    try await deliver(Page(number: nextToDeliver, response: ready, stopReason: stop))
                    if stop != nil {
                        group.cancelAll()
                        return
                    }
                    nextToDeliver += 1
                    start()
                }
            }
        }
    }

    private func fetch(url: String) async throws(ClientError) -> ClientResponse {
        try await client.request(method: method, url: url, parameters: parameters, headers: headers, extracting: keyPaths + extracting)
    }

    private func receive(url: String) async throws(ClientError) -> Exchange {
        try await client.receive(method: method, url: url, parameters: parameters, headers: headers)
    }

    private func value(_ field: String, _ response: ClientResponse) -> Value? {
        fields[field].flatMap { response.values[$0] }
    }

    private func integer(_ field: String, _ response: ClientResponse) -> Int? {
        switch value(field, response) {
        case .integer(let number)?: Int(number)
        case .number(let number)?: Int(exactly: number)
        case .string(let text)?: Int(text)
        case .decimal(let number)?: Int(truncating: number as NSDecimalNumber)
        default: nil
        }
    }

    private var pageSize: Int? { pagination?.pageSize ?? learnedPageSize }

    /// The number of pages when the first page tells it.
    private func knownPageCount(_ response: ClientResponse) -> Int? {
        if let count = integer("pageCount", response) { return count }
        if let objects = integer("objectCount", response), let size = pageSize, size > 0 { return (objects + size - 1) / size }
        return nil
    }

    /// Why to stop after this page, or the next page's URL.
    private mutating func decide(number: Int, response: ClientResponse) -> (StopReason?, String?) {
        guard let pagination else { return (.notPaginated, nil) }
        let records = response.result.records.count
        if learnedPageSize == nil { learnedPageSize = integer("perPage", response) ?? (number == 1 && records > 0 ? records : nil) }
        recordsSoFar += records
        if records == 0 { return (.emptyPage, nil) }
        var next: String?
        switch pagination.kind {
        case .page, .offset:
            let current = pagination.kind == .page ? (integer("currentPage", response) ?? pagination.firstPage + number - 1) - pagination.firstPage + 1 : number
            if let count = integer("pageCount", response), current >= count { return (.lastPage(pageCount: count), nil) }
            if let count = integer("objectCount", response), pagination.kind == .offset ? (number - 1) * (pageSize ?? records) + records >= count
                : recordsSoFar >= count {
                return (.lastObject(objectCount: count), nil)
            }
            if let size = pagination.pageSize ?? integer("perPage", response), records < size {
                return (.shortPage(records: records, pageSize: size), nil)
            }
            next = try? pageURL(number: number + 1, cursor: nil)
        case .cursor:
            let found = value("cursor", response).flatMap { Self.cursorText($0) }
                ?? pagination.cursorHeader.flatMap { HTTPField.Name($0) }.flatMap { response.headers[$0] }
            guard let cursor = found, !cursor.isEmpty else { return (.noNextCursor, nil) }
            guard seenCursors.insert(cursor).inserted else { return (.repeatedCursor(cursor), nil) }
            next = try? pageURL(number: number + 1, cursor: cursor)
        case .link:
            let target = response.headers[.link].flatMap { LinkHeader.target(rel: "next", in: $0) } ?? value("next", response)?.stringValue
            guard let target, !target.isEmpty,
                  let resolved = URL(string: target, relativeTo: URL(string: response.finalURL))?.absoluteString else { return (.noNextLink, nil) }
            guard !seenURLs.contains(resolved) else { return (.repeatedURL(client.redact(resolved)), nil) }
            if let url = URL(string: resolved), !client.credentials.admits(url) {
                return (.otherOrigin(Origin(url)?.hostAndPort ?? resolved), nil)
            }
            next = resolved
        }
        if number >= limit.count { return (limit.stopReason, next) }
        return (nil, next)
    }

    /// The URL of page `number`: the pagination's path or the route's, with the pagination's
    /// query parameters (or the kind's defaults) and the caller's query.
    func pageURL(number: Int, cursor: String?) throws(ClientError) -> String {
        guard let pagination else { return client.url(for: path, query: query) }
        let size = pageSize
        var placeholders: [String: String] = [
            "currentPage": String(pagination.firstPage + number - 1),
            "offset": String((number - 1) * (size ?? 0)),
        ]
        // Like RestKit's paginator (`RKPaginatorDefaultPerPage`), a `:perPage` the schema asks
        // for is filled with 25 until a size is known; it decides nothing else (a short page is
        // measured against `pageSize` or the body's `perPage` alone).
        placeholders["perPage"] = String(size ?? Self.defaultPerPage)
        if let cursor { placeholders["cursor"] = cursor }
        var base = path
        if let pattern = pagination.path {
            do {
                base = try pattern.interpolate { placeholders[$0] ?? parameters[$0] ?? ($0 == "cursor" ? "" : nil) }
            } catch {
                throw .invalidRequest("pagination path: \(error)")
            }
        }
        let templates = pagination.query ?? (pagination.path == nil ? Self.defaultQuery(pagination.kind, hasPageSize: size != nil) : [])
        var items: [(String, String)] = []
        for template in templates {
            var text = template.template, missing = false
            for name in template.placeholders {
                guard let value = placeholders[name] else { missing = true; break }
                // Most templates are one placeholder (`:currentPage`): no search for it.
                let placeholder = ":" + name
                text = text == placeholder ? value : text.replacingOccurrences(of: placeholder, with: value)
            }
            if !missing { items.append((template.name, text)) }
        }
        return PercentEncoding.appending(items + query.sorted { $0.key < $1.key }, to: client.url(for: base))
    }

    /// The `:perPage` of a request when neither the schema's `pageSize` nor an earlier page gives
    /// one: RestKit's `RKPaginatorDefaultPerPage`.
    static let defaultPerPage = 25

    /// A cursor value as text: a string, or a whole number.
    static func cursorText(_ value: Value) -> String? {
        if case .integer(let number) = value { return String(number) }
        return value.stringValue
    }

    /// The query parameters of a kind when the schema gives none.
    static func defaultQuery(_ kind: PaginationKind, hasPageSize: Bool) -> [QueryParameter] {
        var items: [QueryParameter]
        switch kind {
        case .page: items = [QueryParameter(name: "page", template: ":currentPage")]
        case .offset: items = [QueryParameter(name: "offset", template: ":offset")]
        case .cursor: items = [QueryParameter(name: "cursor", template: ":cursor")]
        case .link: items = []
        }
        if hasPageSize { items.append(QueryParameter(name: kind == .offset ? "limit" : "per_page", template: ":perPage")) }
        return items
    }
}

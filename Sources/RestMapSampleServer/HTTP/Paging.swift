import Foundation

/// Page arithmetic and RFC 8288 `Link` headers shared by the paginated lists.
struct Paging: Sendable {
    /// 1-based page number.
    var page: Int
    var perPage: Int
    var total: Int

    /// Reads `page` (or a synonym from `pageNames`) and `per_page` from a request, clamping the
    /// size to 1…`maximumSize` (the fault `ignore-per-page` keeps `defaultSize`); `nil` when a value is not an integer or the page is below 1.
    static func read(_ request: RouteRequest, pageNames: [String] = ["page"], defaultSize: Int, maximumSize: Int = 100, total: Int) -> Paging? {
        guard let page = request.integer(pageNames, default: 1), page >= 1,
              let size = request.faults.ignorePerPage ? defaultSize : request.integer(["per_page"], default: defaultSize) else { return nil }
        return Paging(page: page, perPage: min(max(size, 1), maximumSize), total: total)
    }

    /// The answer to a page or size that is not a positive integer.
    static let invalid = Reply.error(.badRequest, "error", "page and per_page must be positive integers")

    var pageCount: Int { total == 0 ? 1 : (total + perPage - 1) / perPage }

    /// The index range of this page, empty past the end.
    var range: Range<Int> {
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        let start = overflow ? total : min(offset, total)
        return start..<min(start + perPage, total)
    }

    /// `Link: <…page=1…>; rel="first", …` with `prev`/`next` where they exist. The links keep the
    /// request's other query parameters; `link-origin` replaces the origin and `loop` makes `next` repeat.
    func linkHeader(for request: RouteRequest) -> String {
        let origin = request.faults.linkOrigin ?? request.origin
        func url(_ target: Int) -> String {
            var pairs = request.rawQuery.filter { $0.name != "page" && $0.name != "per_page" }
            pairs.append(("page", String(target)))
            pairs.append(("per_page", String(perPage)))
            return "<\(origin)\(request.path)?\(FormEncoding.join(pairs))>"
        }
        var links = ["\(url(1)); rel=\"first\""]
        if page > 1 { links.append("\(url(min(page - 1, pageCount))); rel=\"prev\"") }
        if page < pageCount {
            // `loop=1`: from the second page on, `next` is the page itself (a URL seen before).
            let next = request.faults.loop && page >= 2 ? page : page + 1
            links.append("\(url(next)); rel=\"next\"")
        }
        links.append("\(url(pageCount)); rel=\"last\"")
        return links.joined(separator: ", ")
    }
}

extension Reply {
    /// A JSON array from elements that already are JSON.
    static func jsonArray(_ elements: some Collection<[UInt8]>) -> Reply {
        var body: [UInt8] = [UInt8(ascii: "[")]
        body.reserveCapacity(elements.reduce(2) { $0 + $1.count + 1 })
        for (index, element) in elements.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += element
        }
        body.append(UInt8(ascii: "]"))
        return .json(bytes: body)
    }

    /// One page of a list as a JSON array with its `Link` header.
    static func linkedPage(_ elements: [[UInt8]], request: RouteRequest, defaultSize: Int, lastModified: Date) -> Reply {
        guard let paging = Paging.read(request, defaultSize: defaultSize, total: elements.count) else { return Paging.invalid }
        var reply = jsonArray(elements[paging.range]).adding(.link, paging.linkHeader(for: request))
        reply.lastModified = lastModified
        return reply
    }
}

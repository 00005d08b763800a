import Foundation

/// Why a run of pages ended. Every run states one; a loop never spins and never ends silently.
public enum StopReason: Sendable, Hashable, CustomStringConvertible {
    /// The route has no pagination: one page is all there is.
    case notPaginated
    /// The page number reached the page count the body gave.
    case lastPage(pageCount: Int)
    /// The records fetched reached the object count the body gave.
    case lastObject(objectCount: Int)
    /// A page held no records.
    case emptyPage
    /// A page held fewer records than the page size.
    case shortPage(records: Int, pageSize: Int)
    /// A cursor page named no next cursor.
    case noNextCursor
    /// A link page named no next URL.
    case noNextLink
    /// The next cursor was one already used: the server loops.
    case repeatedCursor(String)
    /// The next URL was one already fetched: the server loops.
    case repeatedURL(String)
    /// The page limit (`maxPages`, `--max-pages`) was reached.
    case maxPages(Int)
    /// The next page is on another origin that is not trusted (`host:port`).
    case otherOrigin(String)

    public var description: String {
        switch self {
        case .notPaginated: "not paginated"
        case .lastPage(let count): "last page (pageCount \(count))"
        case .lastObject(let count): "last page (objectCount \(count))"
        case .emptyPage: "empty page"
        case .shortPage(let records, let size): "short page (\(records) of \(size) records)"
        case .noNextCursor: "no next cursor"
        case .noNextLink: "no next link"
        case .repeatedCursor(let cursor): "loop: cursor seen before (\(cursor))"
        case .repeatedURL(let url): "loop: URL seen before (\(url))"
        case .maxPages(let count): "max pages (\(count))"
        case .otherOrigin(let host): "next page on another origin (\(host))"
        }
    }
}

/// RFC 8288 `Link` header values.
enum LinkHeader {
    /// The target of the first link with `rel` among its relation types.
    static func target(rel wanted: String, in header: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = String(rest[rest.index(after: open)..<close])
            let afterTarget = rest[rest.index(after: close)...]
            let end = afterTarget.firstIndex(of: "<") ?? afterTarget.endIndex
            let parameters = afterTarget[..<end]
            for parameter in parameters.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { continue }
                let relations = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \",")).lowercased().split(separator: " ")
                if relations.contains(where: { $0 == wanted }) { return target }
            }
            rest = afterTarget[end...]
        }
        return nil
    }
}

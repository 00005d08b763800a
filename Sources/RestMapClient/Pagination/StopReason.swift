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
    /// The default page cap (`ClientConfiguration.maxPages`, 1000) stopped a run that named no
    /// limit, with more pages to come: the result is incomplete.
    case pageCap(Int)
    /// The next page is on another origin that is not trusted (`host:port`).
    case otherOrigin(String)

    /// Whether the run ended before the collection did, without the caller asking for it.
    public var isIncomplete: Bool {
        if case .pageCap = self { return true }
        return false
    }

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
        case .pageCap(let count): "page cap (\(count) pages; more pages follow)"
        case .otherOrigin(let host): "next page on another origin (\(host))"
        }
    }
}

/// RFC 8288 `Link` header values.
enum LinkHeader {
    /// The target of the first link with `rel` among its relation types (compared without case).
    /// Reads the header's UTF-8 bytes: every page of a link run parses one.
    static func target(rel wanted: String, in header: String) -> String? {
        let bytes = Array(header.utf8), wanted = Array(wanted.lowercased().utf8)
        var position = 0
        while let open = bytes[position...].firstIndex(of: UInt8(ascii: "<")),
              let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")) {
            let end = bytes[(close + 1)...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.endIndex
            for parameter in bytes[(close + 1)..<end].split(separator: UInt8(ascii: ";")) {
                let pair = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1)
                guard pair.count == 2, lowercased(trimming(pair[0], [0x20, 0x09])) == Array("rel".utf8) else { continue }
                let relations = lowercased(trimming(pair[1], [0x20, UInt8(ascii: "\""), UInt8(ascii: ",")]))
                if relations.split(separator: 0x20).contains(where: { $0.elementsEqual(wanted) }) {
                    return String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
                }
            }
            position = end
        }
        return nil
    }

    private static func trimming(_ bytes: ArraySlice<UInt8>, _ set: Set<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !set.contains($0) }), let last = bytes.lastIndex(where: { !set.contains($0) }) else { return [] }
        return bytes[first...last]
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }
}

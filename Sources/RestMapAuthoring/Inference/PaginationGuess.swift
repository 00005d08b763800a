import FoundationEssentials
import RestMap

/// A drafted `pagination:` block: its fields in order and why it was guessed.
struct PaginationGuess: Equatable {
    /// `kind` first, then the kind's fields, as YAML flow text (`cursor: meta.next_token`).
    var fields: [(key: String, value: String)]
    /// What in the sample suggested it.
    var reason: String

    static func == (first: PaginationGuess, second: PaginationGuess) -> Bool {
        first.fields.map { "\($0.key)=\($0.value)" } == second.fields.map { "\($0.key)=\($0.value)" } && first.reason == second.reason
    }

    /// `pagination: { kind: cursor, cursor: next_cursor }  # guessed: …`
    var line: String {
        "pagination: { \(fields.map { "\($0.key): \($0.value)" }.joined(separator: ", ")) }  # guessed: \(reason)"
    }

    /// The paging fields an envelope (the body around the records) or the response headers hold.
    ///
    /// In order: a `Link` header with `rel="next"`; a header that carries a cursor; a next-page
    /// URL in the body (`next`, `links.next`, `_links.next.href`, `next_page_url`…); a next cursor
    /// (`next_cursor`, `next_token`, `nextPageToken`, `paging.cursors.after`…); `has_more` next to
    /// records with an `id` (the last id is the cursor, Stripe's `starting_after`); an `offset`;
    /// a page number (`page`, `current_page`) with its page size and counts.
    static func guess(envelope members: [Value.Member], records recordKeyPath: [String]?, recordsHaveID: Bool,
                      headers: [String: String]) -> PaginationGuess? {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if name.lowercased() == "link", value.contains("rel=next") || value.contains("rel=\"next") {
                return PaginationGuess(fields: [("kind", "link")], reason: "the Link header has a rel=\"next\" URL")
            }
        }
        for name in headers.keys.sorted() where Naming.words(name).map({ $0.lowercased() }).contains("cursor") {
            return PaginationGuess(fields: [("kind", "cursor"), ("cursorHeader", YAMLText.scalar(name))],
                                   reason: "the '\(name)' header carries the next cursor")
        }
        let fields = pagingFields(members, under: [])
        func first(_ names: Set<String>, _ accepts: (Value) -> Bool) -> (path: [String], value: Value)? {
            fields.first { names.contains(normalized($0.path.last ?? "")) && accepts($0.value) }
        }
        func path(_ found: (path: [String], value: Value)) -> String { YAMLText.keyPath(segments: found.path) }

        let isLink: (Value) -> Bool = { value in
            guard let text = value.stringValue else { return value.isNull }
            return text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("/")
        }
        if let next = first(["next", "next_url", "next_page_url", "next_link", "nextlink", "next_href"], isLink)
            ?? fields.first(where: { $0.path.count >= 2 && normalized($0.path[$0.path.count - 2]) == "next"
                && normalized($0.path.last!) == "href" && isLink($0.value) }) {
            return PaginationGuess(fields: [("kind", "link"), ("next", path(next))],
                                   reason: "'\(next.path.joined(separator: "."))' holds the next page's URL")
        }
        let isToken: (Value) -> Bool = { $0.stringValue != nil || $0.isNull }
        if let cursor = first(["next_cursor", "cursor", "next_token", "next_page_token", "continuation_token", "continuation",
                               "end_cursor", "scroll_id", "next_key", "after"], isToken) {
            var result = [("kind", "cursor"), ("cursor", path(cursor))]
            let key = cursor.path.last!
            // The parameter is the key without its `next` (`next_cursor` → `cursor`, `nextPageToken` →
            // `pageToken`); a bare `next_token` is sent as it is.
            var words = Naming.words(key)
            if words.first?.lowercased() == "next", words.dropFirst().map({ $0.lowercased() }) != ["token"] { words.removeFirst() }
            let parameter = words.isEmpty ? "cursor"
                : key.contains("_") ? words.map { $0.lowercased() }.joined(separator: "_")
                : words.first!.lowercased() + words.dropFirst().joined()
            if parameter != "cursor" { result.append(("query", "{ \(YAMLText.scalar(parameter)): \":cursor\" }")) }
            return PaginationGuess(fields: result, reason: "'\(cursor.path.joined(separator: "."))' holds the next cursor, sent as '\(parameter)'")
        }
        if let recordKeyPath, !recordKeyPath.isEmpty, recordsHaveID,
           !recordKeyPath.contains(where: { $0.contains(".") || $0.contains("\\") || $0.hasPrefix("@") }),
           first(["has_more"], { if case .bool = $0 { true } else { false } }) != nil {
            let cursor = YAMLText.scalar((recordKeyPath + ["@last", "id"]).joined(separator: "."))
            return PaginationGuess(fields: [("kind", "cursor"), ("cursor", cursor), ("query", "{ starting_after: \":cursor\" }")],
                                   reason: "'has_more' next to records with an id: the last id is the cursor")
        }
        let isInteger: (Value) -> Bool = { if case .integer = $0 { true } else { false } }
        let perPage = first(["per_page", "page_size", "limit", "size", "max_results", "results_per_page"], isInteger)
        let pageCount = first(["total_pages", "page_count", "pages", "last_page", "num_pages"], isInteger)
        let objectCount = first(["total", "total_count", "total_results", "total_entries", "total_items", "total_objects", "count"], isInteger)
        if let offset = first(["offset", "skip", "start", "start_at", "start_index"], isInteger) {
            var result = [("kind", "offset")]
            if let perPage { result.append(("perPage", path(perPage))) }
            if let objectCount { result.append(("objectCount", path(objectCount))) }
            return PaginationGuess(fields: result, reason: "'\(offset.path.joined(separator: "."))' is an offset")
        }
        if let page = first(["page", "current_page", "page_number", "pagenumber", "currentpage"], isInteger) {
            var result = [("kind", "page"), ("currentPage", path(page))]
            if let perPage { result.append(("perPage", path(perPage))) }
            if let pageCount { result.append(("pageCount", path(pageCount))) }
            if let objectCount { result.append(("objectCount", path(objectCount))) }
            return PaginationGuess(fields: result, reason: "'\(page.path.joined(separator: "."))' is a page number, asked for as 'page'")
        }
        return nil
    }

    /// Scalars of the envelope and of its objects (`meta`, `links`, `response_metadata`), three levels deep.
    private static func pagingFields(_ members: [Value.Member], under path: [String]) -> [(path: [String], value: Value)] {
        guard path.count < 3 else { return [] }
        var fields: [(path: [String], value: Value)] = []
        for member in members where !member.key.isEmpty {
            switch member.value {
            case .object(let nested): fields += pagingFields(nested, under: path + [member.key])
            case .array: continue
            default: fields.append((path + [member.key], member.value))
            }
        }
        return fields
    }

    /// `nextPageToken` → `next_page_token`, `@odata.nextLink` → `nextlink` (its last word group).
    private static func normalized(_ key: String) -> String {
        Naming.words(key.split(separator: ".").last.map(String.init) ?? key).map { $0.lowercased() }.joined(separator: "_")
    }
}

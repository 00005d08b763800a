import RestMapJSON

/// A body that is one JSON array of objects, cut into parts of whole elements without scanning
/// it element by element first; each part is parsed by the thread that maps it, so only the
/// parts being mapped have a tape, and a tape's memory goes to the next part (`HugePages.recycle`).
///
/// Each cut is placed at a `}` `,` `{` near an even share of the bytes, and each part is parsed as
/// an array of its own. A cut that is not between two elements of the array (inside a string, or
/// inside a nested array) leaves the part before it unparsable: every part starts where an element
/// starts (the first after the `[`, each next one after a cut that was right), so a part ending
/// inside a string or a nested container cannot close its `[`. So when every part parses, the parts
/// are the array's elements exactly, and the body is valid JSON (whitespace, `[`, parts joined by
/// `,`, `]`, whitespace); when one does not, `elements(ofPart:)` gives `nil` for it and every part
/// after it, and the caller splits another way.
final class ArrayParts: Sendable {
    private let body: [UInt8]
    /// The `[`, the cut commas and the `]`: part `i` is `cuts[i]...cuts[i + 1]`.
    private let cuts: [Int]
    private struct Progress {
        /// The element count of each part parsed so far.
        var elementCounts: [Int?]
        var failed = false
    }

    private let progress: Monitor<Progress>

    /// `nil` when the body is not an array whose elements can be cut at `}` `,` `{`.
    init?(_ body: [UInt8], count: Int) {
        guard let open = body.firstIndex(where: { !isJSONWhitespace($0) }), body[open] == UInt8(ascii: "["),
              let close = body.lastIndex(where: { !isJSONWhitespace($0) }), close > open, body[close] == UInt8(ascii: "]") else { return nil }
        let firstKey = Self.firstKey(in: body, after: open)
        var found = [open]
        let share = Swift.max((close - open) / count, 1)
        for target in stride(from: open + share, to: close, by: share) {
            guard let comma = Self.objectBoundary(in: body, from: Swift.max(target, found[found.count - 1] + 1), before: close, firstKey: firstKey)
            else { break }
            found.append(comma)
        }
        found.append(close)
        guard found.count > 2 else { return nil }
        self.body = body
        cuts = found
        progress = Monitor(Progress(elementCounts: Array(repeating: nil, count: found.count - 1)))
    }

    /// The number of parts.
    var count: Int { cuts.count - 1 }

    /// The bytes of a part.
    func byteCount(ofPart part: Int) -> Int { cuts[part + 1] - cuts[part] + 1 }

    /// Parses a part: its elements and the array index of the first, known once every part before
    /// it has been parsed (by other threads; parts are taken in order, so this waits only for
    /// parses already running). `nil` when this part or one before it does not parse.
    func elements(ofPart part: Int, profile: StageProfile? = nil) -> (nodes: [JSONNode], firstIndex: Int)? {
        // The part's elements, read in place: its first and last bytes (the `[`, `]` or the cut
        // commas) stand for its brackets.
        // Once a part failed, the parts after it are not parsed: the caller splits another way.
        guard !progress.withLock({ $0.failed }) else { return nil }
        let nodes = (try? JSONDocument(elementsIn: body, range: cuts[part]...cuts[part + 1])).map { Array($0.root.elements) }
        progress.update { progress in
            if let nodes { progress.elementCounts[part] = nodes.count } else { progress.failed = true }
        }
        let firstIndex = progress.wait(until: { progress -> Int?? in
            if progress.failed { return .some(nil) }
            var sum = 0
            for count in progress.elementCounts[..<part] {
                guard let count else { return nil }
                sum += count
            }
            return .some(sum)
        }, waited: profile?.addWait)
        guard let firstIndex, let nodes else { return nil }
        return (nodes, firstIndex)
    }

    /// The first `,` at or after `start` with a `}` before it and a `{` after it (whitespace
    /// around them allowed), and after the `{` the array's first key when it is known.
    ///
    /// Arrays that a service lists are of objects written alike, each beginning with the same key
    /// (`"id"`), while objects in a nested array (`"tags": [{"label": …}, {"label": …}]`) begin
    /// with another: requiring the first key keeps most cuts out of nested arrays, which the
    /// parse of the parts would catch, but only after mapping what came before.
    private static func objectBoundary(in body: [UInt8], from start: Int, before end: Int, firstKey: ArraySlice<UInt8>?) -> Int? {
        var position = start
        while position < end {
            guard body[position] == UInt8(ascii: ",") else {
                position += 1
                continue
            }
            var before = position - 1
            while before > 0, isJSONWhitespace(body[before]) { before -= 1 }
            var after = position + 1
            while after < end, isJSONWhitespace(body[after]) { after += 1 }
            if body[before] == UInt8(ascii: "}"), after < end, body[after] == UInt8(ascii: "{"),
               firstKey.map({ Self.firstKey(in: body, after: after) == $0 }) ?? true {
                return position
            }
            position += 1
        }
        return nil
    }

    /// The quoted key (escapes and all) that begins the object whose `{` is at `position`, or, for
    /// the array's `[`, that begins its first element; `nil` when there is none.
    private static func firstKey(in body: [UInt8], after position: Int) -> ArraySlice<UInt8>? {
        var start = position + 1
        while start < body.count, isJSONWhitespace(body[start]) { start += 1 }
        guard start < body.count else { return nil }
        if body[position] == UInt8(ascii: "[") {
            return body[start] == UInt8(ascii: "{") ? firstKey(in: body, after: start) : nil
        }
        guard body[start] == UInt8(ascii: "\"") else { return nil }
        var end = start + 1
        while end < body.count, body[end] != UInt8(ascii: "\"") {
            end += body[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        return end < body.count ? body[start...end] : nil
    }
}

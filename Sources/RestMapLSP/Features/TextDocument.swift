import FoundationEssentials
import RestMapSchema

/// An open schema file: its text, and conversions between LSP positions (0-based line, UTF-16
/// character) and schema positions (1-based line, column in Unicode scalars).
struct TextDocument {
    var uri: String
    var text: String
    let lines: [[Unicode.Scalar]]

    init(uri: String, text: String) {
        self.uri = uri
        self.text = text
        var lines: [[Unicode.Scalar]] = [[]]
        for scalar in text.unicodeScalars {
            if scalar == "\n" { lines.append([]) } else { lines[lines.count - 1].append(scalar) }
        }
        self.lines = lines.map { $0.last == "\r" ? Array($0.dropLast()) : $0 }
    }

    /// The file path the URI names (diagnostics carry it).
    var path: String {
        guard uri.hasPrefix("file://"), let url = URL(string: uri) else { return uri }
        return url.path
    }

    /// The scalars of a 0-based line before a UTF-16 character offset.
    func prefix(line: Int, character: Int) -> [Unicode.Scalar] {
        guard lines.indices.contains(line) else { return [] }
        var units = 0
        var result: [Unicode.Scalar] = []
        for scalar in lines[line] {
            if units >= character { break }
            units += scalar.utf16.count
            result.append(scalar)
        }
        return result
    }

    /// The last position converted: converting positions in order (diagnostics are sorted) goes
    /// on from it, so many positions on one long line (a minified JSON schema) cost one pass.
    private final class PositionMemo {
        var line = -1, column = 0, units = 0
    }

    private let memo = PositionMemo()

    /// The LSP position of a schema location.
    func position(of location: SourceLocation) -> LSP.Position {
        let line = location.line - 1
        guard lines.indices.contains(line) else { return LSP.Position(line: max(0, line), character: 0) }
        let column = min(max(0, location.column - 1), lines[line].count)
        var (start, units) = memo.line == line && memo.column <= column ? (memo.column, memo.units) : (0, 0)
        while start < column {
            units += lines[line][start].utf16.count
            start += 1
        }
        (memo.line, memo.column, memo.units) = (line, column, units)
        return LSP.Position(line: line, character: units)
    }

    /// The LSP range of the token that starts at a schema location (to the next separator).
    func range(of location: SourceLocation) -> LSP.Range {
        let start = position(of: location)
        let line = location.line - 1
        guard lines.indices.contains(line) else { return LSP.Range(start: start, end: start) }
        let rest = lines[line].dropFirst(max(0, location.column - 1))
        let quote = rest.first == "\"" || rest.first == "'" ? rest.first : nil
        var length = 0
        for (index, scalar) in rest.enumerated() {
            if let quote, index > 0, scalar == quote { length += 1; break }
            if quote == nil, " ,}]#".unicodeScalars.contains(scalar) || (scalar == ":" && index + 1 < rest.count && rest[rest.startIndex + index + 1] == " ") { break }
            length += scalar.utf16.count
        }
        return LSP.Range(start: start, end: LSP.Position(line: line, character: start.character + max(1, length)))
    }

    /// A text after the changes of a `didChange`, in order: a change without a range replaces the
    /// whole text; one with a range replaces that range (UTF-16 positions, clamped to the text).
    static func text(_ text: String, applying changes: [LSP.TextDocumentContentChangeEvent]) -> String {
        var text = text
        for change in changes {
            guard let range = change.range else {
                text = change.text
                continue
            }
            let units = Array(text.utf16)
            let start = offset(of: range.start, in: units)
            let end = max(start, offset(of: range.end, in: units))
            text = String(decoding: units[..<start], as: UTF16.self) + change.text + String(decoding: units[end...], as: UTF16.self)
        }
        return text
    }

    /// The offset in UTF-16 code units of an LSP position in a text: a character past the end of
    /// its line is the line's end, a line past the end of the text is the text's end.
    private static func offset(of position: LSP.Position, in units: [UInt16]) -> Int {
        var start = 0
        for _ in 0..<max(0, position.line) {
            guard let newline = units[start...].firstIndex(of: 0x0A) else { return units.count }
            start = newline + 1
        }
        var end = units[start...].firstIndex(of: 0x0A) ?? units.count
        if end > start, units[end - 1] == 0x0D { end -= 1 }
        return start + min(max(0, position.character), end - start)
    }

    /// The word under a position: letters, digits and `_ - . @ $ /`, with its start character.
    func word(line: Int, character: Int) -> (text: String, start: Int)? {
        guard lines.indices.contains(line) else { return nil }
        let scalars = lines[line]
        let isWord: (Unicode.Scalar) -> Bool = { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.@$/\\".unicodeScalars.contains($0) }
        var index = prefix(line: line, character: character).count
        if index >= scalars.count || !isWord(scalars[index]) {
            guard index > 0, isWord(scalars[index - 1]) else { return nil }
            index -= 1
        }
        var start = index
        while start > 0, isWord(scalars[start - 1]) { start -= 1 }
        var end = index
        while end < scalars.count, isWord(scalars[end]) { end += 1 }
        let startCharacter = scalars[..<start].reduce(0) { $0 + $1.utf16.count }
        return (String(String.UnicodeScalarView(scalars[start..<end])), startCharacter)
    }
}

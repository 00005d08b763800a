import RestMapPluginKit
import RestMapSchema

/// Where the cursor is in a schema file's YAML structure, read from the text (which may not
/// parse while it is being typed): the keys from the root down to the mapping that holds the
/// cursor (list items are implicit), and whether the cursor is on a key or on a key's value.
struct CursorContext: Equatable {
    /// Keys from the root to the mapping holding the cursor.
    var path: [String]
    /// The key whose value the cursor is on; `nil` when the cursor is on a key.
    var key: String?
    /// What was typed of the current word.
    var typed: String

    init(path: [String], key: String?, typed: String) {
        self.path = path
        self.key = key
        self.typed = typed
    }

    init(document: TextDocument, line: Int, character: Int) {
        let before = document.prefix(line: line, character: character)
        var path = Self.blockPath(document.lines, line: line, indentation: Self.contentIndentation(before))
        var segment = Self.stripListMarkers(String(String.UnicodeScalarView(before)))
        // Flow collections opened on this line and not closed before the cursor.
        var stack: [(bracket: Character, key: String?)] = []
        var current = ""
        var quote: Character?
        for character in segment {
            if let open = quote {
                if character == open { quote = nil }
                current.append(character)
                continue
            }
            switch character {
            case "\"", "'":
                quote = character
                current.append(character)
            case "{", "[":
                stack.append((character, Self.keyBefore(current)))
                current = ""
            case "}", "]":
                _ = stack.popLast()
                current = ""
            case ",":
                current = ""
            default:
                current.append(character)
            }
        }
        if stack.isEmpty {
            segment = current
        } else {
            for (index, entry) in stack.enumerated() {
                // A list's items hold values of the list's key; a mapping's keys extend the path.
                if let key = entry.key, !(index == stack.count - 1 && entry.bracket == "[") { path.append(key) }
            }
            segment = current
            if let top = stack.last, top.bracket == "[" {
                self.init(path: path, key: top.key, typed: Self.typedWord(current))
                return
            }
        }
        if let colon = Self.separatorIndex(segment) {
            let key = segment[..<colon].trimmingWhitespace()
            self.init(path: path, key: Self.unquote(key), typed: Self.typedWord(String(segment[segment.index(after: colon)...])))
        } else {
            self.init(path: path, key: nil, typed: Self.typedWord(segment))
        }
    }

    // MARK: Reading the text

    /// The first `: ` (or a final `:`) outside quotes: what separates a key from its value.
    static func separatorIndex(_ text: String) -> String.Index? {
        var quote: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ":" {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The key in front of a flow collection: `owner: ` → `owner`.
    static func keyBefore(_ text: String) -> String? {
        guard let colon = separatorIndex(text) else { return nil }
        let key = text[..<colon].trimmingWhitespace()
        return key.isEmpty ? nil : unquote(key)
    }

    static func unquote(_ text: String) -> String {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    /// The partial word at the end of a text (after spaces and quotes).
    static func typedWord(_ text: String) -> String {
        String(text.reversed().prefix { !" \"'".contains($0) }.reversed())
    }

    /// The text with leading spaces and list markers (`- `) removed.
    static func stripListMarkers(_ text: String) -> String {
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == " " }
            guard rest.hasPrefix("- ") || rest == "-" else { return String(rest) }
            rest = rest.dropFirst()
        }
    }

    /// The column where a line's content starts, after its list markers.
    static func contentIndentation(_ scalars: some Collection<Unicode.Scalar>) -> Int {
        var column = 0
        var pendingDash = false
        for scalar in scalars {
            if scalar == " " { column += 1; pendingDash = false; continue }
            if scalar == "-" && !pendingDash { pendingDash = true; column += 1; continue }
            if pendingDash { return column - 1 }
            return column
        }
        return column
    }

    /// The keys of the block mappings that enclose a line indented by `indentation`.
    static func blockPath(_ lines: [[Unicode.Scalar]], line: Int, indentation: Int) -> [String] {
        var path: [String] = []
        var limit = indentation
        var index = min(line, lines.count) - 1
        while index >= 0, limit > 0 {
            let scalars = lines[index]
            index -= 1
            let text = String(String.UnicodeScalarView(scalars))
            let content = stripListMarkers(text)
            guard !content.isEmpty, !content.hasPrefix("#") else { continue }
            let column = contentIndentation(scalars)
            guard column < limit else { continue }
            limit = column
            if let colon = separatorIndex(content) {
                let value = content[content.index(after: colon)...].trimmingWhitespace()
                // Only a key that opens a block (no value, or a comment) encloses what follows.
                if value.isEmpty || value.hasPrefix("#") || value == "|" || value == ">" {
                    path.insert(unquote(content[..<colon].trimmingWhitespace()), at: 0)
                }
            }
        }
        return path
    }
}

/// The grammar below a path of keys.
enum GrammarWalk {
    /// The shape at a path: lists are stepped into, choices resolved to their mapping alternative.
    static func shape(at path: [String], in grammar: Shape) -> Shape? {
        var shape = grammar
        for key in path {
            guard let next = member(of: shape, key) else { return nil }
            shape = next
        }
        return shape
    }

    /// The shape of `key` in the mapping `shape` describes.
    static func member(of shape: Shape, _ key: String) -> Shape? {
        switch mapping(shape) {
        case .object(let object)?: object.property(named: key)?.shape
        case .dictionary(let value, _)?: value
        default: nil
        }
    }

    /// The mapping alternative of a shape, through lists and choices.
    static func mapping(_ shape: Shape) -> Shape? {
        switch shape {
        case .object, .dictionary: shape
        case .list(let item): mapping(item)
        case .choice(let alternatives):
            alternatives.lazy.compactMap { alternative -> Shape? in
                if case .object = alternative { return alternative }
                return nil
            }.first ?? alternatives.lazy.compactMap(mapping).first
        default: nil
        }
    }

    /// The object description of a path, when it is a mapping with known keys.
    static func object(at path: [String], in grammar: Shape) -> ObjectShape? {
        guard let shape = shape(at: path, in: grammar), case .object(let object)? = mapping(shape) else { return nil }
        return object
    }

    /// Every fixed word a shape accepts (enumerations and booleans, through lists and choices),
    /// each once, in first-seen order: a choice's alternatives can accept the same word (`type`
    /// takes a type name, or a one-item list of one).
    static func words(_ shape: Shape) -> [String] {
        var seen = Set<String>()
        return allWords(shape).filter { seen.insert($0).inserted }
    }

    private static func allWords(_ shape: Shape) -> [String] {
        switch shape {
        case .enumeration(let words): words
        case .boolean: ["true", "false"]
        case .list(let item): allWords(item)
        case .choice(let alternatives): alternatives.flatMap(allWords)
        default: []
        }
    }

    /// Whether a shape holds entity names.
    static func holdsEntityName(_ shape: Shape) -> Bool {
        switch shape {
        case .string(.entityName): true
        case .list(let item), .dictionary(let item, _): holdsEntityName(item)
        case .choice(let alternatives): alternatives.contains(where: holdsEntityName)
        default: false
        }
    }

    /// Whether a shape holds key paths.
    static func holdsKeyPath(_ shape: Shape) -> Bool {
        switch shape {
        case .string(.keyPath): true
        case .choice(let alternatives): alternatives.contains(where: holdsKeyPath)
        default: false
        }
    }
}

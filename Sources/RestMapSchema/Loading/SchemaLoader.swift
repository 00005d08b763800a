import FoundationEssentials
// libyaml, as vendored by Yams: driving its event parser directly keeps composing non-recursive,
// lets every duplicate key be reported (not only the first) and bounds alias expansion.
import CLibYAML

/// A schema document read into a node tree, or diagnostics saying why there is none. Problems
/// that do not stop reading (a duplicate key) come alongside the tree.
public struct SchemaDocument: Sendable {
    /// The root node; `nil` when the document could not be read.
    public var root: SchemaNode?
    /// What reading found, errors and warnings.
    public var diagnostics: [Diagnostic]

    /// A document read by other means: a schema embedded in another file keeps that file's positions.
    public init(root: SchemaNode?, diagnostics: [Diagnostic]) {
        self.root = root
        self.diagnostics = diagnostics
    }
}

/// Reads schema documents (YAML or JSON) into positioned `SchemaNode` trees, within limits.
///
/// Loading never crashes and never hangs on hostile input: nesting depth, alias expansion and
/// document size are bounded, and each refusal is a diagnostic with a position.
public struct SchemaLoader: Sendable {
    /// Deepest nesting of lists and mappings accepted.
    public var maximumDepth = 128
    /// Most nodes a document may expand to once aliases are followed ("billion laughs" guard).
    public var maximumExpandedNodes = 200_000
    /// Largest file accepted, in bytes.
    public var maximumFileSize = 16 << 20

    public init() {}

    /// Loads the file at `path`.
    public func load(contentsOf path: String) -> SchemaDocument {
        let start = SourceLocation(file: path, line: 1, column: 1)
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return SchemaDocument(root: nil, diagnostics: [.error("no such file", at: start)])
        }
        if isDirectory {
            return SchemaDocument(root: nil, diagnostics: [.error("is a directory, not a schema file", at: start)])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return SchemaDocument(root: nil, diagnostics: [.error("cannot read the file", at: start)])
        }
        return load(bytes: [UInt8](data), file: path)
    }

    /// Loads a document held in memory; `file` names it in diagnostics.
    public func load(bytes: [UInt8], file: String) -> SchemaDocument {
        let start = SourceLocation(file: file, line: 1, column: 1)
        if bytes.count > maximumFileSize {
            return SchemaDocument(root: nil, diagnostics: [.error(
                "file is \(bytes.count) bytes; schemas larger than \(maximumFileSize) bytes are refused", at: start)])
        }
        if let bad = Self.firstInvalidUTF8(in: bytes) {
            return SchemaDocument(root: nil, diagnostics: [.error(
                "the file is not UTF-8 text (invalid byte 0x\(String(bytes[bad], radix: 16, uppercase: true)) at offset \(bad))",
                at: Self.location(ofOffset: bad, in: bytes, file: file))])
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return SchemaDocument(root: nil, diagnostics: [.error(Self.emptyFileMessage, at: start)])
        }
        var composer = Composer(file: file, bytes: bytes, limits: self)
        return composer.compose()
    }

    static let emptyFileMessage = "the file is empty; a schema starts with 'restmap: 1'"

    // MARK: Byte-level helpers

    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var index = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                index += UTF8.width(scalar)
            case .emptyInput:
                return nil
            case .error:
                return index
            }
        }
    }

    /// The line and column of a byte offset (columns count characters, not bytes).
    public static func location(ofOffset offset: Int, in bytes: [UInt8], file: String) -> SourceLocation {
        var line = 1, column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return SourceLocation(file: file, line: line, column: column)
    }
}

/// Builds `SchemaNode`s from libyaml events with an explicit stack (no recursion).
private struct Composer {
    let file: String
    let bytes: [UInt8]
    let limits: SchemaLoader
    var diagnostics: [Diagnostic] = []
    var anchors: [String: SchemaNode] = [:]
    var expandedNodes = 0

    /// A list or mapping being built.
    struct OpenNode {
        var location: SourceLocation
        var anchor: String?
        var isMapping: Bool
        var items: [SchemaNode] = []
        var pendingKey: SchemaNode?
        var pairs: [SchemaNode.Pair] = []
        var keyLocations: [String: SourceLocation] = [:]
    }

    init(file: String, bytes: [UInt8], limits: SchemaLoader) {
        self.file = file
        self.bytes = bytes
        self.limits = limits
    }

    mutating func compose() -> SchemaDocument {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            return SchemaDocument(root: nil, diagnostics: [.error("cannot start the YAML parser", at: location(line: 0, column: 0))])
        }
        defer { yaml_parser_delete(&parser) }
        return bytes.withUnsafeBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var stack: [OpenNode] = []
            var root: SchemaNode?
            var documents = 0
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    diagnostics.append(yamlError(parser))
                    return SchemaDocument(root: nil, diagnostics: diagnostics)
                }
                defer { yaml_event_delete(&event) }
                let here = location(line: event.start_mark.line, column: event.start_mark.column)
                var finished: SchemaNode?
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    if root == nil {  // only comments, or only a document marker
                        diagnostics.append(.error(SchemaLoader.emptyFileMessage, at: location(line: 0, column: 0)))
                    }
                    return SchemaDocument(root: root, diagnostics: diagnostics)
                case YAML_DOCUMENT_START_EVENT:
                    documents += 1
                    if documents > 1 {
                        diagnostics.append(.error("a schema file holds one YAML document; found a second one", at: here))
                        return SchemaDocument(root: nil, diagnostics: diagnostics)
                    }
                case YAML_SCALAR_EVENT:
                    let scalar = event.data.scalar
                    let text = string(scalar.value, length: scalar.length)
                    let quoted = scalar.style != YAML_PLAIN_SCALAR_STYLE || scalar.tag != nil && string(scalar.tag) == "tag:yaml.org,2002:str"
                    let node = SchemaNode(.scalar(text, quoted: quoted), at: here)
                    if let anchor = scalar.anchor { anchors[string(anchor)] = node }
                    finished = node
                case YAML_ALIAS_EVENT:
                    let name = string(event.data.alias.anchor)
                    guard let node = anchors[name] else {
                        diagnostics.append(.error("undefined alias '*\(name)'", at: here))
                        return SchemaDocument(root: nil, diagnostics: diagnostics)
                    }
                    expandedNodes += node.size
                    if expandedNodes > limits.maximumExpandedNodes {
                        diagnostics.append(.error(
                            "aliases expand the document beyond \(limits.maximumExpandedNodes) nodes; refusing to expand '*\(name)' further",
                            at: here))
                        return SchemaDocument(root: nil, diagnostics: diagnostics)
                    }
                    finished = node
                case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    if stack.count >= limits.maximumDepth {
                        diagnostics.append(.error("nesting deeper than \(limits.maximumDepth) levels", at: here))
                        return SchemaDocument(root: nil, diagnostics: diagnostics)
                    }
                    let isMapping = event.type == YAML_MAPPING_START_EVENT
                    let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                    stack.append(OpenNode(location: here, anchor: anchor.map { string($0) }, isMapping: isMapping))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    let open = stack.removeLast()
                    let node = open.isMapping
                        ? SchemaNode(.mapping(open.pairs), at: open.location)
                        : SchemaNode(.sequence(open.items), at: open.location)
                    if let anchor = open.anchor { anchors[anchor] = node }
                    finished = node
                default:
                    break
                }
                guard let node = finished else { continue }
                expandedNodes += 1
                if stack.isEmpty {
                    root = node
                } else {
                    attach(node, to: &stack[stack.count - 1])
                }
            }
        }
    }

    mutating func attach(_ node: SchemaNode, to parent: inout OpenNode) {
        guard parent.isMapping else {
            parent.items.append(node)
            return
        }
        guard let key = parent.pendingKey else {
            parent.pendingKey = node
            return
        }
        parent.pendingKey = nil
        if let text = key.scalarText {
            if let first = parent.keyLocations[text] {
                diagnostics.append(.error(
                    "duplicate key '\(text)' (first defined at line \(first.line), column \(first.column))", at: key.location))
                return
            }
            parent.keyLocations[text] = key.location
        } else {
            diagnostics.append(.error("a mapping key must be a plain value, not \(key.kindName)", at: key.location))
            return
        }
        parent.pairs.append(SchemaNode.Pair(key: key, value: node))
    }

    func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: file, line: line + 1, column: column + 1)
    }

    func string(_ pointer: UnsafeMutablePointer<UInt8>?, length: Int? = nil) -> String {
        guard let pointer else { return "" }
        let count = length ?? strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// libyaml's limit on the length of a key written without `?` (a "simple key").
    static let maximumKeyLength = 1024

    /// The start and length (in characters, quotes left out) of a key over `maximumKeyLength` that
    /// made the parser fail: libyaml no longer takes it for a key, so it stops at the ':' after it
    /// ("mapping values are not allowed" in block style, "did not find expected ',' or '}'" in
    /// flow style, as in JSON), or, for a key it had to read, says it "could not find expected ':'".
    func longKey(_ parser: yaml_parser_t) -> (start: SourceLocation, length: Int)? {
        let problem = parser.problem.map { String(cString: $0) } ?? ""
        let problemOffset = byteOffset(of: parser.problem_mark)
        var keyStart: Int?, keyEnd = problemOffset
        if problem == "could not find expected ':'" {
            keyStart = byteOffset(of: parser.context_mark)
            // The key runs to the ':' that follows it on its line (if the parser stopped before).
            var end = keyStart!
            while end < bytes.count, bytes[end] != 0x0A, !(bytes[end] == UInt8(ascii: ":") && (end + 1 == bytes.count || [0x20, 0x0A, 0x0D].contains(bytes[end + 1]))) { end += 1 }
            keyEnd = end
        } else if ["did not find expected ',' or '}'", "mapping values are not allowed in this context"].contains(problem),
                  problemOffset < bytes.count, bytes[problemOffset] == UInt8(ascii: ":") {
            // The scalar before the ':': a quoted one back to its opening quote, else a plain one
            // back to the start of its line or flow entry.
            var end = problemOffset
            while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            guard end > 0 else { return nil }
            keyEnd = end
            var start = end - 1
            if bytes[start] == UInt8(ascii: "\"") || bytes[start] == UInt8(ascii: "'") {
                let quote = bytes[start]
                keyEnd = start
                start -= 1
                while start >= 0, !(bytes[start] == quote && (start == 0 || bytes[start - 1] != UInt8(ascii: "\\"))) { start -= 1 }
                guard start >= 0 else { return nil }
                start += 1
            } else {
                while start > 0, ![UInt8(ascii: "{"), UInt8(ascii: ","), UInt8(ascii: "["), 0x0A].contains(bytes[start - 1]) { start -= 1 }
                while start < keyEnd, bytes[start] == 0x20 || bytes[start] == UInt8(ascii: "-") && start + 1 < keyEnd && bytes[start + 1] == 0x20 { start += 1 }
            }
            keyStart = start
        }
        guard let keyStart, keyEnd > keyStart else { return nil }
        let length = String(decoding: bytes[keyStart..<keyEnd], as: UTF8.self).unicodeScalars.count
        guard length > Self.maximumKeyLength else { return nil }
        return (SchemaLoader.location(ofOffset: keyStart, in: bytes, file: file), length)
    }

    /// The byte offset of a libyaml mark (whose line and column count characters).
    func byteOffset(of mark: yaml_mark_t) -> Int {
        var offset = 0
        for _ in 0..<Int(mark.line) {
            guard let newline = bytes[offset...].firstIndex(of: 0x0A) else { return bytes.count }
            offset = newline + 1
        }
        var characters = 0
        while offset < bytes.count, characters < Int(mark.column) {
            offset += 1
            while offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            characters += 1
        }
        return offset
    }

    /// A diagnostic for a YAML syntax error, with a hint for the usual causes.
    func yamlError(_ parser: yaml_parser_t) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) + ", " } ?? ""
        let mark = parser.problem_mark
        let at = location(line: mark.line, column: mark.column)
        if problem.hasPrefix("Maximum nesting level reached") {
            // libyaml's own bound (1,000 levels): its scanner looks ahead through flow
            // collections, so it can stop before the composer sees level `maximumDepth`.
            return .error("nesting deeper than \(limits.maximumDepth) levels", at: at)
        }
        if let key = longKey(parser) {
            return .error(
                "a mapping key of \(key.length) characters: keys are limited to \(Self.maximumKeyLength) characters "
                    + "(the YAML parser's limit for a key, which applies to JSON schemas too)",
                at: key.start)
        }
        var message = "YAML syntax error: \(context)\(problem)"
        let offset = byteOffset(of: mark)
        let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let lineEnd = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
        let line = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
        if problem.contains("cannot start any token"), line.contains(": @") || line.contains("- @") {
            message += " (hint: a value that starts with '@' must be quoted, e.g. from: \"@self\")"
        } else if problem.contains("found character that cannot start any token"), line.contains("\t") {
            message += " (hint: YAML indentation must use spaces, not tabs)"
        } else if problem.contains("mapping values are not allowed") {
            message += " (hint: quote a value that contains ': ', or check the indentation)"
        }
        return .error(message, at: at)
    }
}

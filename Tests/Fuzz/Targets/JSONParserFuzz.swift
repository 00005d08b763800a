// libFuzzer target: the JSON parser and the stream splitter (compiled with Sources/RestMapJSON).
// Any input must either parse or fail with a JSONParseError (never crash); what parses must
// read back; the splitter must agree with the parser on what is a valid array or line; an array
// in a file cut in chunks must give the splitter's elements and errors.

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = try? JSONDocument(bytes: bytes)
    if let whole { walk(whole.root, depth: 0) }
    // Runs of elements parsed in place (how a split body's parts are read): any range parses or
    // fails cleanly, and a whole array read as a run has the elements the parser finds.
    if size >= 2 {
        let run = try? JSONDocument(elementsIn: bytes, range: 0...(size - 1))
        if let run { walk(run.root, depth: 0) }
        if let whole, whole.root.kind == .array, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") {
            precondition(run?.root.count == whole.root.count, "a whole array read as a run of elements differs")
        }
        if let comma = bytes.firstIndex(of: UInt8(ascii: ",")) {
            for range in [0...comma, comma...(size - 1)] where range.count >= 2 {
                if let part = try? JSONDocument(elementsIn: bytes, range: range) { walk(part.root, depth: 0) }
            }
        }
    }
    for layout in [JSONStreamLayout.array(keys: []), .array(keys: ["a", "b"]), .lines] {
        var stream = JSONElementStream(source: InMemorySource(bytes), layout: layout, bufferSize: 64)
        while let batch = try? stream.nextBatch(targetBytes: 32) {
            for case .success(let node) in batch.documents() { walk(node, depth: 0) }
        }
    }
    // An array in a file cut in chunks (how the mapping threads cut one): the stream's elements
    // and error for any input; for valid JSON, every chunk's guessed start is right.
    for chunkBytes in [5, 64] {
        let streamed = elements(of: bytes)
        let (chunked, guessedRight) = chunkedElements(of: bytes, chunkBytes: chunkBytes)
        precondition(chunked.texts == streamed.texts && chunked.failure == streamed.failure,
                     "chunks of \(chunkBytes) read other elements than the stream: \(chunked) vs \(streamed)")
        precondition(guessedRight || whole == nil, "a chunk's start was guessed wrong in valid JSON (chunks of \(chunkBytes))")
        // Claimed by the elements' shape, guesses may be wrong; the elements may not.
        let (byShape, _) = chunkedElements(of: bytes, chunkBytes: chunkBytes, byShape: true)
        precondition(byShape.texts == streamed.texts && byShape.failure == streamed.failure,
                     "chunks of \(chunkBytes) claimed by shape read other elements than the stream: \(byShape) vs \(streamed)")
    }
    return 0
}

/// Each element's text and index, and the error that ended the stream.
private struct Reading: Equatable {
    var texts: [String] = []
    var failure: JSONStreamError?
}

private func elements(of bytes: [UInt8]) -> Reading {
    var stream = JSONElementStream(source: InMemorySource(bytes), layout: .array(keys: []), bufferSize: 64)
    var reading = Reading()
    do throws(JSONStreamError) {
        while let batch = try stream.nextBatch(targetBytes: 32) {
            reading.texts += batch.ranges.enumerated().map { "\(batch.firstIndex + $0.offset):" + String(decoding: batch.bytes[$0.element], as: UTF8.self) }
        }
    } catch {
        reading.failure = error
    }
    return reading
}

/// The input in a file, cut as `ArrayChunkChain` cuts it: summaries (or, `byShape`, the
/// elements' shape when the first is an object), guessed starts, each chunk cut from where the one
/// before stopped.
private func chunkedElements(of bytes: [UInt8], chunkBytes: Int, byShape: Bool = false) -> (Reading, guessedRight: Bool) {
    let file = InputFile.shared
    file.replace(with: bytes)
    let positional = JSONPositionalBytes(descriptor: file.descriptor, from: 0)!
    var header = JSONElementStream(source: JSONPositionalReader(positional), layout: .array(keys: []), bufferSize: 64)
    var reading = Reading()
    let entry: JSONArrayCursor
    do throws(JSONStreamError) { entry = try header.arrayEntry() } catch {
        reading.failure = error
        return (reading, true)
    }
    var chunks = JSONPositionalArrayChunks(bytes: positional, layout: .array(keys: []), entry: entry, chunkBytes: chunkBytes)
    var numbers: [Int] = []
    while let number = chunks.nextChunk() { numbers.append(number) }
    var nesting = JSONArrayNesting.elementLevel
    var claims: [JSONArrayChunkClaim] = []
    if byShape, let key = chunks.leadingKey() {
        claims = numbers.map { $0 == 0 ? .cursor(entry) : chunks.claimByShape(chunk: $0, key: key) }
    }
    for number in numbers where claims.count < numbers.count {
        guard let summary = chunks.summarize(chunk: number) else { return (reading, false) }
        claims.append(number == 0 ? .cursor(entry) : chunks.claim(chunk: number, nesting: nesting, summary: summary))
        nesting = summary.nesting(after: nesting)
    }
    var cursor = entry
    var guessedRight = true
    for number in numbers {
        let (cut, held) = chunks.settle(chunk: number, guess: chunks.guess(chunk: number, claim: claims[number]), truth: cursor)
        guessedRight = guessedRight && held
        let before = reading.texts.count
        if let batch = cut.batch {
            reading.texts += batch.ranges.enumerated().map { "\(before + $0.offset):" + String(decoding: batch.bytes[$0.element], as: UTF8.self) }
        }
        if var failure = cut.failure {
            failure.element = failure.element.map { $0 + before }
            reading.failure = failure
            return (reading, guessedRight)
        }
        cursor = cut.exit
    }
    return (reading, guessedRight)
}

/// One temporary file, unlinked once open, that holds each input in turn.
private final class InputFile: @unchecked Sendable {
    static let shared = InputFile()
    let descriptor: Int32

    private init() {
        var template = Array("/tmp/restmap-fuzz-XXXXXX".utf8CString)
        descriptor = mkstemp(&template)
        precondition(descriptor >= 0, "cannot create a temporary file")
        unlink(template)
    }

    func replace(with bytes: [UInt8]) {
        precondition(ftruncate(descriptor, 0) == 0)
        bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let count = pwrite(descriptor, raw.baseAddress! + written, raw.count - written, off_t(written))
                precondition(count > 0, "cannot write the temporary file")
                written += count
            }
        }
    }
}

private func walk(_ node: JSONNode, depth: Int) {
    guard depth < 600 else { return }
    switch node.kind {
    case .object:
        for member in node.members { walk(member.value, depth: depth + 1) }
        _ = node.keys
    case .array:
        for element in node.elements { walk(element, depth: depth + 1) }
    case .string: _ = node.stringValue
    case .number: _ = (node.number?.int64, node.number?.double)
    case .bool: _ = node.boolValue
    case .null: break
    }
}

// libFuzzer target: the JSON parser and the stream splitter (compiled with Sources/RestMapJSON).
// Any input must either parse or fail with a JSONParseError (never crash); what parses must
// read back; the splitter must agree with the parser on what is a valid array or line.

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
    return 0
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

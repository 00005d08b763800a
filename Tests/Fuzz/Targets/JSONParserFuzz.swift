// libFuzzer target: the JSON parser and the stream splitter (compiled with Sources/RestMapJSON).
// Any input must either parse or fail with a JSONParseError (never crash); what parses must
// read back; the splitter must agree with the parser on what is a valid array or line.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let document = try? JSONDocument(bytes: bytes) {
        walk(document.root, depth: 0)
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

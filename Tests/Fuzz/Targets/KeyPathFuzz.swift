// libFuzzer target: key path parsing (compiled with Sources/RestMapSchema). Any text must parse
// or fail with a ParseError whose offset lies within the text.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let path = try MappingKeyPath.parse(text)
        _ = (path.singleKey, path.isSelf, path.description)
    } catch {
        precondition(error.offset >= 0 && error.offset <= text.count + 1, "offset \(error.offset) outside '\(text)'")
    }
    return 0
}

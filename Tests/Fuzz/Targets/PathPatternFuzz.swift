// libFuzzer target: path patterns (compiled with Sources/RestMapSchema). The input's first line
// is a pattern, the rest a path to match; a pattern interpolated with its own parameters' names
// must match what it produced.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPathPattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    guard let pattern = try? PathPattern.parse(String(parts[0])) else { return 0 }
    if parts.count > 1 { _ = pattern.match(parts[1]) }
    if let path = try? pattern.interpolate({ "v" + String($0.count) }) {
        _ = pattern.match(path[...])
    }
    return 0
}

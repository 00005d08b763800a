// libFuzzer target: the schema loader and validator (compiled with Sources/RestMapSchema, linked
// with the CLibYAML objects of the debug build). A schema is untrusted input: any bytes must
// load into a schema or diagnostics, never crash.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSchema(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let loaded = Schema.validate(bytes: Array(UnsafeBufferPointer(start: data, count: size)), file: "fuzz.yaml")
    precondition(loaded.schema != nil || !loaded.diagnostics.isEmpty, "no schema and no diagnostics")
    _ = loaded.diagnostics.map(\.description)
    return 0
}

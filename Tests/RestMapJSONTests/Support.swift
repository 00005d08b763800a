import Foundation
import RestMapJSON
import Testing

/// Runs `body` on the bytes of a temporary regular file holding `junk` newlines, then `text`
/// (the input begins after the junk); the file is removed afterwards.
func withTemporaryFile<Result, Failure: Error>(_ text: [UInt8], junk: Int = 0,
                                               _ body: (JSONPositionalBytes) throws(Failure) -> Result) throws(Failure) -> Result {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("restmap-input-\(UUID().uuidString)").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data(Array(repeating: UInt8(ascii: "\n"), count: junk) + text)))
    let descriptor = open(path, O_RDONLY)
    defer {
        close(descriptor)
        unlink(path)
    }
    return try body(JSONPositionalBytes(descriptor: descriptor, from: junk)!)
}

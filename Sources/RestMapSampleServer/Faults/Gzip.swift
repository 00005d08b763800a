import CZlib

/// gzip streams (RFC 1952) written by the system zlib.
enum Gzip {
    /// `bytes` compressed at zlib's default level.
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        deflate(level: Z_DEFAULT_COMPRESSION, strategy: Z_DEFAULT_STRATEGY) { feed in feed(bytes[...]) }
    }

    /// A stream that inflates to `count` zero bytes, about a thousandth of that on the wire
    /// (run-length matches of 258 bytes at distance 1).
    static func zeros(count: Int) -> [UInt8] {
        precondition(count >= 1)
        let chunk = [UInt8](repeating: 0, count: min(count, chunkSize))
        return deflate(level: Z_BEST_COMPRESSION, strategy: Z_RLE) { feed in
            var remaining = count
            while remaining > 0 {
                feed(chunk.prefix(remaining))
                remaining -= min(remaining, chunk.count)
            }
        }
    }

    /// A stream that inflates to the JSON array `[{"id":1},{"id":1},…]` of `count` objects, about
    /// 1/500 of that on the wire (matches of 258 bytes at distance 9).
    static func objectArray(count: Int) -> [UInt8] {
        precondition(count >= 1)
        let object = Array(#"{"id":1},"#.utf8)
        let objectsPerChunk = chunkSize / object.count
        let chunk = Array([[UInt8]](repeating: object, count: min(count, objectsPerChunk)).joined())
        return deflate(level: Z_BEST_COMPRESSION, strategy: Z_DEFAULT_STRATEGY) { feed in
            feed([UInt8(ascii: "[")])
            var remaining = count
            while remaining > 0 {
                let objects = min(remaining, objectsPerChunk)
                remaining -= objects
                // The last object goes without its comma.
                feed(chunk.prefix(objects * object.count - (remaining == 0 ? 1 : 0)))
            }
            feed([UInt8(ascii: "]")])
        }
    }

    /// The most input bytes fed to zlib at once.
    private static let chunkSize = 1 << 16

    /// A gzip stream of what `produce` feeds, compressed with `level` and `strategy`.
    private static func deflate(level: Int32, strategy: Int32, _ produce: ((ArraySlice<UInt8>) -> Void) -> Void) -> [UInt8] {
        // zlib keeps a pointer to its stream: the stream must not move while it is open.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        // Window bits 15 + 16: a gzip header and trailer around the deflate data.
        let status = deflateInit2_(stream, level, Z_DEFLATED, 15 + 16, 8, strategy, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        defer { deflateEnd(stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        /// Runs deflate over the input until it has taken all of it (and, finishing, until the end).
        func run(_ input: ArraySlice<UInt8>, flush: Int32) {
            input.withUnsafeBufferPointer { input in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = UInt32(input.count)
                buffer.withUnsafeMutableBufferPointer { buffer in
                    repeat {
                        stream.pointee.next_out = buffer.baseAddress
                        stream.pointee.avail_out = UInt32(buffer.count)
                        let status = CZlib.deflate(stream, flush)
                        precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate failed: \(status)")
                        output += buffer[..<(buffer.count - Int(stream.pointee.avail_out))]
                    } while stream.pointee.avail_out == 0
                }
            }
        }
        produce { run($0, flush: Z_NO_FLUSH) }
        run([], flush: Z_FINISH)
        return output
    }
}

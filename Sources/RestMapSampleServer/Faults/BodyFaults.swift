import Foundation
import Hummingbird

/// Shapes a response by the body faults in the documented order:
/// `gzip-bomb`, `gzip-objects`, `oversize`, `malformed`, `content-type`, `gzip`, `corrupt-encoding`,
/// then `close` or `trickle`.
enum BodyFaults {
    /// Thrown by a body writer to drop the connection mid-body.
    struct ConnectionDropped: Error {}

    /// The longest a trickle pauses in total before sending the rest at once.
    static let trickleLimit = Duration.seconds(60)

    /// The response shaped by the body faults of `faults`; the response itself when it asks for none.
    static func response(_ response: Response, faults: FaultRequest) async throws -> Response {
        let replacesBody = faults.gzipBombBytes != nil || faults.gzipObjects != nil || faults.oversizeBytes != nil
        let changesBody = faults.malformed || faults.gzip || faults.corruptEncoding != nil || faults.close || faults.trickleMilliseconds != nil
        guard replacesBody || changesBody || faults.contentType != nil else { return response }
        var headers = response.headers
        // The length belongs to the route's body; the response with the new body states its own.
        headers[.contentLength] = nil
        if replacesBody || faults.malformed || faults.corruptEncoding != nil {
            // The validators belong to the route's body, not to the replacement.
            headers[.eTag] = nil
            headers[.lastModified] = nil
        }
        var body: [UInt8]?
        if let count = faults.gzipBombBytes {
            headers[.contentType] = Reply.jsonContentType
            headers[.contentEncoding] = "gzip"
            body = Gzip.zeros(count: count)
        } else if let count = faults.gzipObjects {
            headers[.contentType] = Reply.jsonContentType
            headers[.contentEncoding] = "gzip"
            body = Gzip.objectArray(count: count)
        } else if let count = faults.oversizeBytes {
            headers[.contentType] = Reply.jsonContentType
            return Response(status: response.status, headers: headers, body: oversizedBody(count, chunked: faults.oversizeChunked))
        } else if changesBody {
            body = try await bytes(of: response.body)
        }
        if faults.malformed, let whole = body {
            body = Array(whole.prefix(whole.count / 2)) + Array("<<<".utf8)
        }
        if let contentType = faults.contentType {
            headers[.contentType] = contentType
        }
        if faults.gzip, let plain = body {
            headers[.contentEncoding] = "gzip"
            body = Gzip.compress(plain)
        }
        if let encoding = faults.corruptEncoding, let plain = body {
            headers[.contentEncoding] = encoding
            // gzip: a valid stream cut before its end and checksum; deflate: bytes that are no zlib stream.
            body = encoding == "gzip" ? Array(Gzip.compress(plain).dropLast(12)) : [0x78, 0x9C] + Array(repeating: 0xFF, count: 64)
        }
        guard let body else {
            // Only `content-type`: the route's body as it is.
            var changed = response
            changed.headers[.contentType] = faults.contentType
            return changed
        }
        if faults.close {
            let half = ByteBuffer(bytes: body.prefix(body.count / 2))
            return Response(status: response.status, headers: headers, body: ResponseBody(contentLength: body.count) { writer in
                try await writer.write(half)
                throw ConnectionDropped()
            })
        }
        if let pause = faults.trickleMilliseconds {
            return Response(status: response.status, headers: headers, body: trickledBody(body, every: .milliseconds(pause), bytes: faults.trickleBytes))
        }
        return Response(status: response.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The bytes a response body writes (the routes' bodies are in memory).
    private static func bytes(of body: ResponseBody) async throws -> [UInt8] {
        let collector = BodyCollector()
        try await body.write(collector)
        return collector.bytes
    }

    /// A body writer that keeps what is written.
    private final class BodyCollector: ResponseBodyWriter {
        var bytes: [UInt8] = []

        func write(_ buffer: ByteBuffer) async throws {
            bytes += buffer.readableBytesView
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    /// `["aaaa…"]` of exactly `count` bytes (`[]`, `[0]` below 4), written 64 KiB at a time.
    private static func oversizedBody(_ count: Int, chunked: Bool) -> ResponseBody {
        ResponseBody(contentLength: chunked ? nil : count) { writer in
            guard count >= 4 else {
                try await writer.write(ByteBuffer(string: count == 2 ? "[]" : "[0]"))
                try await writer.finish(nil)
                return
            }
            try await writer.write(ByteBuffer(string: "[\""))
            let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 65_536)
            var remaining = count - 4
            while remaining > 0 {
                let size = min(remaining, chunk.readableBytes)
                try await writer.write(chunk.getSlice(at: 0, length: size)!)
                remaining -= size
            }
            try await writer.write(ByteBuffer(string: "\"]"))
            try await writer.finish(nil)
        }
    }

    /// The body `bytes` bytes at a time with a pause between writes, pausing at most `trickleLimit` in all.
    private static func trickledBody(_ body: [UInt8], every pause: Duration, bytes: Int) -> ResponseBody {
        ResponseBody(contentLength: body.count) { writer in
            var paused = Duration.zero
            var offset = 0
            while offset < body.count {
                let end = paused < trickleLimit ? min(offset + bytes, body.count) : body.count
                try await writer.write(ByteBuffer(bytes: body[offset..<end]))
                offset = end
                if offset < body.count, paused < trickleLimit {
                    try await Task.sleep(for: pause)
                    paused += pause
                }
            }
            try await writer.finish(nil)
        }
    }
}

import Glibc
import RestMap
import RestMapPluginKit

/// JSON-RPC 2.0 messages framed as LSP says: `Content-Length: N\r\n\r\n` then N bytes of JSON.
public struct MessageTransport {
    /// Messages larger than this are refused (a corrupt header cannot make the server allocate without bound).
    public static let maximumMessageSize = 64 << 20

    private let input: Int32
    private let output: Int32
    private var buffer: [UInt8] = []

    /// Reads messages from the file descriptor `input` and writes them to `output`.
    public init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Why a message could not be read.
    public enum ReadError: Error, CustomStringConvertible {
        case badHeader(String)
        case tooLarge(Int)

        public var description: String {
            switch self {
            case .badHeader(let header): "malformed message header: \(header)"
            case .tooLarge(let size): "message of \(size) bytes exceeds the limit of \(MessageTransport.maximumMessageSize)"
            }
        }
    }

    /// The next message's JSON bytes, or `nil` at the end of the input.
    public mutating func read() throws(ReadError) -> [UInt8]? {
        var length: Int?
        while true {
            guard let line = readLine() else { return nil }
            if line.isEmpty { break }
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw .badHeader(line) }
            if parts[0].trimmingWhitespace().lowercased() == "content-length" {
                guard let value = Int(parts[1].trimmingWhitespace()), value >= 0 else { throw .badHeader(line) }
                guard value <= Self.maximumMessageSize else { throw .tooLarge(value) }
                length = value
            }
        }
        guard let length else { throw .badHeader("no Content-Length") }
        while buffer.count < length {
            guard fill() else { return nil }
        }
        let message = Array(buffer[..<length])
        buffer.removeFirst(length)
        return message
    }

    /// The next message and every further one already received in full: a batch the caller can
    /// act on at once (a newer edit in it supersedes an older one). `nil` at the end of the input.
    public mutating func readBatch() throws(ReadError) -> [[UInt8]]? {
        guard let first = try read() else { return nil }
        var batch = [first]
        while let next = try bufferedMessage() { batch.append(next) }
        return batch
    }

    /// A message complete in the buffer, read without waiting for more input; `nil` when the
    /// buffer holds none in full.
    private mutating func bufferedMessage() throws(ReadError) -> [UInt8]? {
        guard let headerEnd = Self.headerEnd(in: buffer) else { return nil }
        var length: Int?
        for line in String(decoding: buffer[..<headerEnd], as: UTF8.self).split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw .badHeader(String(line)) }
            if parts[0].trimmingWhitespace().lowercased() == "content-length" {
                guard let value = Int(parts[1].trimmingWhitespace()), value >= 0 else { throw .badHeader(String(line)) }
                guard value <= Self.maximumMessageSize else { throw .tooLarge(value) }
                length = value
            }
        }
        guard let length else { throw .badHeader("no Content-Length") }
        let bodyStart = headerEnd + 4
        guard buffer.count - bodyStart >= length else { return nil }
        let message = Array(buffer[bodyStart..<bodyStart + length])
        buffer.removeFirst(bodyStart + length)
        return message
    }

    /// The offset of the `\r\n\r\n` that ends a header block at the start of `bytes`.
    private static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        // A header is a few short lines: one without its end in the first 8 KiB is left to `read()`.
        for index in 0...min(bytes.count - 4, 8192) where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return index
        }
        return nil
    }

    /// Writes one message.
    public func write(_ json: [UInt8]) {
        let message = Array("Content-Length: \(json.count)\r\n\r\n".utf8) + json
        message.withUnsafeBytes { _ = DescriptorOutput.write($0, to: output) }
    }

    /// One header line without its CRLF; `nil` at the end of the input.
    private mutating func readLine() -> String? {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard buffer.count < 8192 else { return String(decoding: buffer, as: UTF8.self) }
            guard fill() else { return nil }
        }
    }

    private mutating func fill() -> Bool {
        let before = buffer.count
        while true {
            buffer.append(contentsOf: repeatElement(0, count: 65536))
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress! + before, 65536) }
            buffer.removeLast(65536 - max(count, 0))
            if count < 0, errno == EINTR { continue }
            return count > 0
        }
    }
}

import Foundation
import RestMapJSON
import RestMapTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What only the sample server's own tests do with it: runs that end by themselves, raw requests.
extension SampleServer {
    /// What a run that should end by itself did: exit status (`nil` when it had to be stopped
    /// after 30 s), first line on standard output, standard error.
    struct Exit: Sendable {
        var status: Int32?
        var firstLine: String?
        var errors: String
    }

    /// Runs the binary with `arguments` until it exits, off the cooperative thread pool; a run
    /// still going after 30 s (or that printed a line) is stopped.
    static func runToExit(_ arguments: [String]) async throws -> Exit {
        try await offPool {
            let run = try launch(arguments)
            defer { try? FileManager.default.removeItem(at: run.errorLog) }
            let line = ChildProcess.firstLine(of: run.output, timeout: 30)
            if line == nil { _ = ChildProcess.waitForExit(of: run.process, timeout: 30) }
            let stopped = run.process.isRunning
            if stopped { run.process.terminate() }
            run.process.waitUntilExit()
            let errors = (try? String(contentsOf: run.errorLog, encoding: .utf8)) ?? ""
            return Exit(status: stopped ? nil : run.process.terminationStatus, firstLine: line, errors: errors)
        }
    }

    /// Sends one request (see `HTTP.send`) to this server, off the cooperative thread pool.
    func send(_ method: String = "GET", _ target: String, headers: [String: String] = [:], body: [UInt8] = []) async throws -> HTTPReply {
        let port = port
        return try await offPool { try HTTP.send(port: port, method: method, target: target, headers: headers, body: body) }
    }

    /// Sends a request that must answer `status`, and parses its body as JSON.
    func json(
        _ method: String = "GET", _ target: String, headers: [String: String] = [:], body: [UInt8] = [], status: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONNode {
        let reply = try await send(method, target, headers: headers, body: body)
        #expect(reply.status == status, "\(method) \(target): \(reply.text)", sourceLocation: sourceLocation)
        return try reply.json()
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One HTTP/1.1 answer as it came off the socket.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    /// The body bytes received (chunked framing removed).
    var body: [UInt8]
    /// Whether the whole body arrived (`Content-Length` met, or the last chunk seen).
    var complete: Bool

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> JSONNode { try JSONDocument(bytes: body).root }

    /// The `Link` header's targets by relation.
    var links: [String: String] {
        guard let header = header("Link") else { return [:] }
        var links: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = pieces.first, target.hasPrefix("<"), target.hasSuffix(">"),
                  let relation = pieces.dropFirst().first(where: { $0.hasPrefix("rel=") }) else { continue }
            links[relation.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = String(target.dropFirst().dropLast())
        }
        return links
    }
}

/// A minimal HTTP/1.1 client over a blocking socket to 127.0.0.1 (and nowhere else), so tests
/// see exactly what the server sent: raw bytes, truncated bodies, compressed bodies, redirects.
enum HTTP {
    /// Bytes read at most from one answer.
    static let maximumBytes = 64 << 20

    /// Sends one request with `Connection: close` and reads until the server closes, bounded by
    /// `timeout` seconds per read and by `maximumBytes`.
    static func send(
        port: Int, method: String, target: String, headers: [String: String] = [:], body: [UInt8] = [], timeout: Int = 30
    ) throws -> HTTPReply {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure("socket() failed") }
        defer { close(socket) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("connect to 127.0.0.1:\(port) failed") }

        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure("send to 127.0.0.1:\(port) failed") }
            sent += written
        }

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < maximumBytes {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }   // closed, reset or timed out: what arrived is the answer
            received += buffer[0..<count]
        }
        return try parse(received)
    }

    static func parse(_ bytes: [UInt8]) throws -> HTTPReply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) }) else {
            throw Failure("no complete response head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure("bad status line \(lines[0])") }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var reply = HTTPReply(status: status, headers: headers, body: Array(bytes[(end + 4)...]), complete: true)
        if reply.header("Transfer-Encoding")?.lowercased() == "chunked" {
            (reply.body, reply.complete) = dechunk(reply.body)
        } else if let length = reply.header("Content-Length").flatMap(Int.init) {
            reply.complete = reply.body.count == length
        }
        return reply
    }

    /// Removes chunked framing; complete when the zero-size chunk arrived.
    private static func dechunk(_ bytes: [UInt8]) -> ([UInt8], Bool) {
        var body: [UInt8] = []
        var index = 0
        while index + 1 < bytes.count, let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) {
            guard let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16) else { return (body, false) }
            if size == 0 { return (body, true) }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { return (body + bytes[start...], false) }
            body += bytes[start..<start + size]
            index = start + size + 2
        }
        return (body, false)
    }
}

/// Reading JSON in assertions.
extension JSONNode {
    var int: Int? { number?.int64.map(Int.init) }

    /// The `key` of every element of an array, as text.
    func column(_ key: String) -> [String] {
        elements.map { element in
            guard let value = element[key] else { return "-" }
            return value.stringValue ?? value.number?.text ?? "\(value.kind)"
        }
    }
}

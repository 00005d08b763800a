import ArgumentParser
import Foundation
import RestMap
import RestMapJSON

/// `name=value` and `name:value` options.
enum Pairs {
    /// The pairs in the order given; names and values trimmed.
    static func ordered(_ items: [String], separator: Character, option: String) throws -> [(String, String)] {
        try items.map { item in
            guard let index = item.firstIndex(of: separator) else {
                throw ValidationError("\(option) takes name\(separator)value, found '\(item)'")
            }
            return (String(item[..<index]).trimmingCharacters(in: .whitespaces),
                    String(item[item.index(after: index)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// The pairs by name (a later one wins).
    static func parse(_ items: [String], separator: Character, option: String) throws -> [String: String] {
        Dictionary(try ordered(items, separator: separator, option: option)) { _, later in later }
    }
}

/// Files the commands read.
enum CommandInput {
    /// The bytes of a file, or of standard input for `-` or no file; `what` names it in the error.
    static func read(_ path: String?, what: String = "body") throws -> [UInt8] {
        let descriptor = try open(path, what: what)
        defer { if descriptor != 0 { close(descriptor) } }
        guard let bytes = readToEnd(descriptor) else {
            throw ValidationError("cannot read the \(what) \(descriptor == 0 ? "from standard input" : "file '\(path ?? "")'")")
        }
        return bytes
    }

    /// Starts `read(_:what:)` on another thread and returns at once: the body is read while the
    /// caller loads the schema and plugins. The result (or the reading error) waits in `value()`.
    static func readInBackground(_ path: String?, what: String = "body") -> BackgroundRead {
        let read = BackgroundRead()
        Thread.detachNewThread { read.finish(Result { try CommandInput.read(path, what: what) }) }
        return read
    }

    /// The bytes a background `read` gives, once it has finished.
    final class BackgroundRead: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        /// Written once by the reading thread before `done` is signalled, read after waiting on it.
        private var result: Result<[UInt8], any Error>?

        fileprivate func finish(_ result: Result<[UInt8], any Error>) {
            self.result = result
            done.signal()
        }

        /// Waits for the read to finish; its bytes, or its error.
        func value() throws -> [UInt8] {
            done.wait()
            done.signal()   // a later call does not wait again
            return try result!.get()
        }
    }

    /// A file opened for reading, or standard input (descriptor 0) for `-` or no file; the caller
    /// closes a descriptor other than 0.
    static func open(_ path: String?, what: String = "body") throws -> Int32 {
        guard let path, path != "-" else { return 0 }
        let descriptor = Foundation.open(path, O_RDONLY)
        guard descriptor >= 0 else { throw ValidationError("cannot read the \(what) file '\(path)'") }
        return descriptor
    }

    /// Everything a descriptor gives until its end, read straight into arrays: a regular file in
    /// one piece of its size, a pipe in pieces that double. `nil` when reading fails.
    private static func readToEnd(_ descriptor: Int32) -> [UInt8]? {
        var status = stat()
        var pieceSize = 1 << 16
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
            pieceSize = max(pieceSize, Int(status.st_size) + 1) // + 1: the read that finds the end
        }
        var bytes: [UInt8] = []
        while true {
            var failed = false
            let piece = [UInt8](unsafeUninitializedCapacity: pieceSize) { buffer, initialized in
                HugePages.advise(buffer.baseAddress!, byteCount: buffer.count)
                while initialized < buffer.count {
                    let count = Foundation.read(descriptor, buffer.baseAddress! + initialized, buffer.count - initialized)
                    if count > 0 {
                        initialized += count
                    } else if count == 0 {
                        return
                    } else if errno != EINTR {
                        failed = true
                        return
                    }
                }
            }
            if failed { return nil }
            if bytes.isEmpty { bytes = piece } else { bytes += piece }
            if piece.count < pieceSize { return bytes }
            pieceSize = bytes.count
        }
    }
}

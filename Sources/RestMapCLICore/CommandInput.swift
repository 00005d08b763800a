import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import RestMap
import RestMapJSON

/// Files the commands read.
package enum CommandInput {
    /// The largest body read whole unless a command says otherwise: what a `JSONDocument` holds.
    package static let defaultMaximumBytes = JSONDocument.maximumByteCount

    /// The bytes of a file, or of standard input for `-` or no file; `what` names it in the error.
    /// More than `maximumBytes` is refused as soon as it is seen (`InputTooLarge`): a regular
    /// file by its size before reading, anything else (a pipe, a device) once that many bytes
    /// and one more have been read.
    package static func read(_ path: String?, what: String = "body", maximumBytes: Int = defaultMaximumBytes) throws -> [UInt8] {
        let descriptor = try open(path, what: what)
        defer { if descriptor != 0 { close(descriptor) } }
        let source = describe(descriptor, path: path)
        return try readToEnd(descriptor, maximumBytes: maximumBytes).bytes(what: what, source: source, maximumBytes: maximumBytes)
    }

    /// Where `descriptor` reads from, for messages: `standard input` or `file 'path'`.
    package static func describe(_ descriptor: Int32, path: String?) -> String {
        descriptor == 0 ? "standard input" : "file '\(path ?? "")'"
    }

    /// A body over the limit, with how much of it was read before it was refused.
    package struct InputTooLarge: Error, CustomStringConvertible {
        package var what: String
        package var source: String
        package var maximumBytes: Int
        /// A regular file's size, known before reading.
        package var fileSize: Int?
        package var bytesRead: Int

        package init(what: String, source: String, maximumBytes: Int, fileSize: Int?, bytesRead: Int) {
            self.what = what
            self.source = source
            self.maximumBytes = maximumBytes
            self.fileSize = fileSize
            self.bytesRead = bytesRead
        }

        package var description: String {
            let found = fileSize.map { "is \($0) bytes" } ?? "goes on past that"
            return "the \(what) (\(source)) is larger than \(maximumBytes) bytes, the most --max-body allows: it \(found); "
                + "reading stopped after \(bytesRead) bytes"
        }
    }

    /// Starts reading `descriptor` on another thread and returns at once: the body is read while
    /// the caller loads the schema and plugins. Reads to the end, or to `limit` bytes and one more
    /// (which tells that there is more); the result waits in `value()`.
    package static func readInBackground(_ descriptor: Int32, limit: Int, profile: StageProfile? = nil) -> BackgroundRead {
        let read = BackgroundRead()
        let body: @Sendable () -> Void = { read.finish(profile.measure(.read) { readToEnd(descriptor, maximumBytes: limit) }) }
        // A thread the system refuses to create would never finish the read: read here instead.
        if !SystemThread.start(body) { body() }
        return read
    }

    /// The bytes a background read gives, once it has finished.
    package final class BackgroundRead: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        /// Written once by the reading thread before `done` is signalled, read after waiting on it.
        private var result: ReadOutcome?

        fileprivate func finish(_ result: ReadOutcome) {
            self.result = result
            done.signal()
        }

        /// Waits for the read to finish.
        package func value() -> ReadOutcome {
            done.wait()
            done.signal()   // a later call does not wait again
            return result!
        }
    }

    /// A file opened for reading, or standard input (descriptor 0) for `-` or no file; the caller
    /// closes a descriptor other than 0.
    package static func open(_ path: String?, what: String = "body") throws -> Int32 {
        guard let path, path != "-" else { return 0 }
        let descriptor = Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else { throw ValidationError("cannot read the \(what) file '\(path)'") }
        return descriptor
    }

    /// A body file that is a regular file of at least `minimumBytes`, open to be read in parts
    /// (`Mapper.map(_:bodyIn:options:)`); the caller closes the descriptor. `nil` for standard
    /// input, anything but a regular file, a smaller one, or one that cannot be opened (`read`
    /// then reads it, or says why it cannot).
    package static func openRegularFile(_ path: String?, minimumBytes: Int) -> (descriptor: Int32, bytes: JSONPositionalBytes)? {
        guard let path, path != "-" else { return nil }
        let descriptor = Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        guard let size = regularFileSize(descriptor), size >= minimumBytes, let bytes = JSONPositionalBytes(descriptor: descriptor, from: 0) else {
            close(descriptor)
            return nil
        }
        return (descriptor, bytes)
    }

    /// The size of a regular file open at `descriptor`; `nil` for a pipe, a terminal or a device.
    package static func regularFileSize(_ descriptor: Int32) -> Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// What `readToEnd` found.
    package enum ReadOutcome {
        /// Everything, to the end.
        case read([UInt8])
        case failed
        /// More than the limit: `read` holds the first `limit + 1` bytes (none for a regular file
        /// refused by its size, `fileSize`).
        case tooLarge(fileSize: Int?, read: Pieces)
    }

    /// Bytes read in pieces, joined only when asked: a body refused for its size is never
    /// copied into one array, so reading it holds its size once, not twice.
    package struct Pieces {
        private(set) var pieces: [[UInt8]] = []
        package private(set) var count = 0

        package init(_ bytes: [UInt8] = []) {
            if !bytes.isEmpty { append(bytes) }
        }

        package mutating func append(_ piece: [UInt8]) {
            pieces.append(piece)
            count += piece.count
        }

        /// The pieces as one array (the only piece itself when there is one).
        package func joined() -> [UInt8] {
            if pieces.count <= 1 { return pieces.first ?? [] }
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                for piece in pieces {
                    piece.withUnsafeBufferPointer { source in
                        (buffer.baseAddress! + initialized).update(from: source.baseAddress!, count: source.count)
                    }
                    initialized += piece.count
                }
            }
        }
    }

    /// Everything a descriptor gives until its end after `initial` (bytes already read from it),
    /// read straight into arrays: a regular file in one piece of its size, a pipe in pieces that
    /// double, never more than `maximumBytes + 1` in all.
    package static func readToEnd(_ descriptor: Int32, after initial: [UInt8] = [], maximumBytes: Int) -> ReadOutcome {
        var pieceSize = 1 << 16
        if initial.isEmpty, let size = regularFileSize(descriptor) {
            if size > maximumBytes { return .tooLarge(fileSize: size, read: Pieces()) }
            pieceSize = max(pieceSize, size + 1) // + 1: the read that finds the end
        }
        var bytes = Pieces(initial)
        if bytes.count > maximumBytes { return .tooLarge(fileSize: nil, read: bytes) }
        if !initial.isEmpty { pieceSize = max(pieceSize, initial.count) }
        while true {
            // The byte past the limit is read to tell "exactly the limit" from "more".
            pieceSize = min(pieceSize, maximumBytes + 1 - bytes.count)
            var failed = false
            let piece = [UInt8](unsafeUninitializedCapacity: pieceSize) { buffer, initialized in
                HugePages.advise(buffer.baseAddress!, byteCount: buffer.count)
                while initialized < buffer.count {
                    let count = Glibc.read(descriptor, buffer.baseAddress! + initialized, buffer.count - initialized)
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
            if failed { return .failed }
            bytes.append(piece)
            if bytes.count > maximumBytes { return .tooLarge(fileSize: nil, read: bytes) }
            if piece.count < pieceSize { return .read(bytes.joined()) }
            pieceSize = bytes.count
        }
    }
}

extension CommandInput.ReadOutcome {
    /// The bytes read to the end; a reading failure or a body over `maximumBytes` is thrown.
    package func bytes(what: String, source: String, maximumBytes: Int) throws -> [UInt8] {
        switch self {
        case .read(let bytes): return bytes
        case .failed: throw ValidationError("cannot read the \(what) (\(source))")
        case .tooLarge(let fileSize, let read):
            throw CommandInput.InputTooLarge(what: what, source: source, maximumBytes: maximumBytes, fileSize: fileSize,
                                             bytesRead: read.count)
        }
    }
}

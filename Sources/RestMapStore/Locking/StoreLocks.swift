import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A named lock of a store, held until `release()` (`RecordStore.lock(_:whenBusy:)`).
public struct StoreLock: Sendable {
    let held: any HeldStoreLock

    /// Gives the lock up; another holder waiting for it then has it.
    public func release() async {
        await held.release()
    }
}

/// A named lock an engine holds for `RecordStore.withLock` until it is released.
package protocol HeldStoreLock: Sendable {
    /// Gives the lock up; a holder that dies gives it up too (its connection or file closes).
    func release() async
}

/// What the engines' named locks share: waiting, and the hash that turns a name into a key.
package enum StoreLocking {
    /// Waits for a named lock another holder has: calls `attempt` until it returns the lock, again
    /// after a pause that grows from 10 ms to 250 ms, until it has it or the task is cancelled;
    /// `whenBusy` once, when the first attempt did not.
    package static func poll(whenBusy: () -> Void, _ attempt: () async throws -> (any HeldStoreLock)?) async throws -> any HeldStoreLock {
        if let lock = try await attempt() { return lock }
        whenBusy()
        var pause = Duration.milliseconds(10)
        while true {
            try await Task.sleep(for: pause)
            if let lock = try await attempt() { return lock }
            pause = min(pause * 2, .milliseconds(250))
        }
    }

    /// A stable 64-bit hash of a text (FNV-1a): the same in every process and on every machine,
    /// for lock keys and names derived from a store's names.
    package static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// A SQLite store's named locks: a write lock on one byte of the file `<store>-locks` beside it,
/// the byte chosen by the name's hash. The lock is an open-file-description lock (Linux), so it
/// excludes other tasks of this process as well as other processes, and it goes when the file
/// descriptor closes, whatever ends the holder. (Two names that share a byte share the lock:
/// harmless, as each holder only waits longer.) The store file itself is never opened for this:
/// closing a descriptor of it would drop SQLite's own locks.
struct FileByteLock: HeldStoreLock {
    let descriptor: Int32

    /// `F_OFD_SETLK` of Linux (the same on every architecture), which Glibc's module does not export.
    private static let setOpenFileDescriptionLock: Int32 = 37

    /// The lock on `name`'s byte of `file`, or `nil` when another holder has it.
    static func attempt(_ file: String, _ name: String) throws -> FileByteLock? {
        let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError("\(file): cannot open the lock file: \(String(cString: strerror(errno)))") }
        var range = flock()
        range.l_type = Int16(F_WRLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = off_t(StoreLocking.stableHash(name) % (1 << 30))
        range.l_len = 1
        if fcntl(descriptor, setOpenFileDescriptionLock, &range) == 0 { return FileByteLock(descriptor: descriptor) }
        let failure = errno
        close(descriptor)
        guard failure == EAGAIN || failure == EACCES else {
            throw StoreError("\(file): cannot lock '\(name)': \(String(cString: strerror(failure)))")
        }
        return nil
    }

    func release() async {
        close(descriptor)
    }
}

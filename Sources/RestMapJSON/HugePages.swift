#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Large buffers (bodies, tapes, output) backed by 2 MiB pages where the kernel offers them.
///
/// A fresh buffer's memory is mapped page by page as it is first written: 20 MB of 4 KiB pages
/// is 5,000 page faults, which cost a mapping run of a 20 MB body about a fifth of its time.
/// On Linux with transparent huge pages in `madvise` mode (the common default), advising a
/// large buffer makes the kernel map it 2 MiB at a time instead. Elsewhere, and for buffers
/// too small to hold a whole huge page, nothing happens: the advice is only about speed.
package enum HugePages {
    /// Below this size a buffer is left alone (the advice would cover at most one huge page).
    package static let minimumByteCount = 4 << 20
    private static let hugePageSize = 2 << 20

    /// Memory for at least `byteCount` bytes in whole huge pages: rounded up to 2 MiB, aligned to
    /// 2 MiB and advised, so that even a buffer of a few MiB is mapped 2 MiB at a time (only the
    /// pages written are). A buffer given back with `recycle` and large enough is taken first:
    /// its pages are mapped already, so nothing is zeroed again. Returns the start and the
    /// buffer's size (at least `byteCount`); give it back with `recycle`.
    package static func allocate(byteCount: Int) -> (start: UnsafeMutableRawPointer, byteCount: Int) {
        let rounded = (byteCount + hugePageSize - 1) / hugePageSize * hugePageSize
        if let kept = recycled.withLock({ $0.take(atLeast: rounded) }) {
            return (UnsafeMutableRawPointer(bitPattern: kept.address)!, kept.byteCount)
        }
        let start = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: hugePageSize)
        #if os(Linux)
        _ = madvise(start, rounded, MADV_HUGEPAGE)
        #endif
        return (start, rounded)
    }

    /// Gives back a buffer from `allocate`: kept for the next `allocate` while few are kept,
    /// else freed. Parts of a large body are parsed one after another into tapes of about the
    /// same size; a fresh tape's memory costs the kernel zeroing each page as it is first
    /// written, a kept one's does not.
    package static func recycle(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        let kept = recycled.withLock { $0.keep(address: UInt(bitPattern: start), byteCount: byteCount) }
        if !kept { start.deallocate() }
    }

    /// The buffers given back and not yet taken again: at most `maximumCount`, together at most
    /// `maximumByteCount`, so a process that parsed something large keeps little of it.
    struct Recycled {
        static let maximumCount = 4
        static let maximumByteCount = 64 << 20
        private var buffers: [(address: UInt, byteCount: Int)] = []

        /// The smallest kept buffer of at least `byteCount` bytes and at most twice as many (a
        /// small tape does not hold a large buffer), removed from the kept ones.
        mutating func take(atLeast byteCount: Int) -> (address: UInt, byteCount: Int)? {
            guard let index = buffers.indices.filter({ (byteCount...2 * byteCount).contains(buffers[$0].byteCount) })
                .min(by: { buffers[$0].byteCount < buffers[$1].byteCount })
            else { return nil }
            return buffers.remove(at: index)
        }

        /// Keeps a buffer when there is room for it; `false` when the caller frees it.
        mutating func keep(address: UInt, byteCount: Int) -> Bool {
            guard buffers.count < Self.maximumCount, buffers.reduce(byteCount, { $0 + $1.byteCount }) <= Self.maximumByteCount else { return false }
            buffers.append((address, byteCount))
            return true
        }

        /// How many buffers are kept.
        var count: Int { buffers.count }
    }

    private static let recycled = Mutex(Recycled())

    /// How many buffers are kept for reuse (for tests).
    package static var recycledCount: Int { recycled.withLock { $0.count } }

    /// Advises the 2 MiB-aligned pages inside `byteCount` bytes at `start`, before they are
    /// written. Harmless on memory that is written already, or freed later by `free`.
    package static func advise(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        guard byteCount >= minimumByteCount else { return }
        let address = UInt(bitPattern: start)
        let first = (address + UInt(hugePageSize) - 1) & ~UInt(hugePageSize - 1)
        let end = (address + UInt(byteCount)) & ~UInt(hugePageSize - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, Int(end - first), MADV_HUGEPAGE)
        #endif
    }
}

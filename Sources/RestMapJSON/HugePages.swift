#if canImport(Glibc)
import Glibc
#endif

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
    /// pages written are). Free it with `deallocate()` as any allocation.
    package static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        let rounded = (byteCount + hugePageSize - 1) / hugePageSize * hugePageSize
        let start = UnsafeMutableRawPointer.allocate(byteCount: rounded, alignment: hugePageSize)
        #if os(Linux)
        _ = madvise(start, rounded, MADV_HUGEPAGE)
        #endif
        return start
    }

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

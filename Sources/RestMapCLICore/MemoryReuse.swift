#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// How the process's allocator keeps memory it was given back.
///
/// glibc maps each allocation from 128 KiB up (later: up to the largest freed one) with pages of
/// its own and gives it back to the kernel when it is freed, and gives the top of its heap back
/// whenever 128 KiB or more of it is free. A streamed mapping allocates and frees buffers of
/// about a megabyte for every batch (its bytes, its document, its output), so each batch's
/// memory was mapped, zeroed by the kernel page by page as it was first written, and unmapped
/// again: a fifth of the CPU time of `restmap map --stream` went to page faults. Kept instead,
/// the memory is reused as it is. The peak stays what the live buffers need; only the memory
/// given back to the kernel between batches is not given back until the process ends.
package enum MemoryReuse {
    /// Allocations below this come from the heap, whose freed memory is reused (glibc's most).
    package static let mappedThreshold: Int32 = 32 << 20
    /// The heap's free top is given back to the kernel only above this.
    package static let trimThreshold: Int32 = 256 << 20

    /// Sets the thresholds, unless `GLIBC_TUNABLES` sets the allocator's own (the user's choice wins).
    package static func configure() {
        #if canImport(Glibc)
        if let tunables = ProcessEnvironment.value("GLIBC_TUNABLES"), tunables.contains("glibc.malloc.") { return }
        // `mallopt` is declared in <malloc.h>, which the Glibc module does not import: it is
        // looked up by name in the C library (RTLD_DEFAULT), with its options' values from there.
        typealias MallocOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallocOption.self)
        let trimThresholdOption: Int32 = -1, mappedThresholdOption: Int32 = -3   // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
        _ = mallopt(mappedThresholdOption, mappedThreshold)
        _ = mallopt(trimThresholdOption, trimThreshold)
        hugePages(mallopt)
        #endif
    }

    /// The heap grows by at least this much at a time; its first such region is given huge pages.
    package static let hugeRegion: Int32 = 64 << 20

    #if canImport(Glibc)
    /// Asks for transparent huge pages (2 MiB) for the first `hugeRegion` of the heap the calling
    /// thread allocates from, where a body mapped on one thread keeps its records: each 4 KiB page
    /// first touched is a page fault, and a 20 MB body took 5,700 of them instead of 1,800 (8% of
    /// the CPU time of `restmap map --jobs 1`). Only touched pages are used, so memory stays what
    /// the records need, rounded to 2 MiB. This is glibc's `glibc.malloc.hugetlb=1` for that
    /// region; it changes nothing where the kernel gives huge pages always or never
    /// (`/sys/kernel/mm/transparent_hugepage/enabled`).
    private static func hugePages(_ mallopt: @convention(c) (Int32, Int32) -> Int32) {
        let topPadOption: Int32 = -2   // M_TOP_PAD
        guard mallopt(topPadOption, hugeRegion) == 1, let before = sbrk(0) else { return }
        // An allocation larger than the heap's free top (below `mappedThreshold`, so from the
        // heap) grows it by itself and `hugeRegion`, mapped but untouched; freed, it stays. It
        // is made through the C library's symbol: the compiler drops a `malloc` that is only freed.
        typealias Allocate = @convention(c) (Int) -> UnsafeMutableRawPointer?
        guard let symbol = dlsym(nil, "malloc"), let grower = unsafeBitCast(symbol, to: Allocate.self)(16 << 20) else { return }
        free(grower)
        guard let after = sbrk(0), after > before else { return }
        let hugePage = 2 << 20
        let start = (Int(bitPattern: before) + hugePage - 1) & ~(hugePage - 1)
        let end = Int(bitPattern: after) & ~(hugePage - 1)
        guard end > start, let region = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(region, end - start, 14)   // MADV_HUGEPAGE
    }
    #endif
}

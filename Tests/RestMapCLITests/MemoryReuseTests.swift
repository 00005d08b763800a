import Foundation
import RestMapTestSupport
import Testing

/// The allocator settings `restmap` starts with (`MemoryReuse`), seen in a running process's
/// memory map: its heap is advised for transparent huge pages, unless `GLIBC_TUNABLES` sets the
/// allocator's own.
@Suite("restmap's allocator settings")
struct MemoryReuseTests {
    @Test("The heap is advised for huge pages; a glibc.malloc tunable leaves the allocator alone",
          arguments: [(nil, true), ("glibc.malloc.trim_threshold=131072", false)])
    func heapAdvisedForHugePages(_ tunables: String?, _ advised: Bool) throws {
        // `restmap lsp` waits for requests on standard input, so its memory map can be read once
        // it has answered one (the settings come first in `main`).
        let process = Process()
        process.executableURL = try TestPaths.built("restmap")
        process.arguments = ["lsp"]
        var environment = ProcessInfo.processInfo.environment
        environment["GLIBC_TUNABLES"] = tunables
        process.environment = environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            if !ChildProcess.waitForExit(of: process, timeout: 10) { process.terminate() }
        }
        let request = Data(#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}"#.utf8)
        input.fileHandleForWriting.write(Data("Content-Length: \(request.count)\r\n\r\n".utf8) + request)
        let answer = try #require(ChildProcess.firstLine(of: output, timeout: 10), "restmap lsp did not answer")
        #expect(answer.hasPrefix("Content-Length:"))
        let heapFlags = Self.heapFlags(of: process.processIdentifier)
        #expect(!heapFlags.isEmpty, "no [heap] in /proc/\(process.processIdentifier)/smaps")
        // A kernel without transparent huge pages refuses the advice.
        let kernelHasHugePages = FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
        #expect(heapFlags.contains(where: { $0.contains(" hg") }) == (advised && kernelHasHugePages), "\(heapFlags)")
    }

    /// The `VmFlags` lines of the process's heap mappings.
    private static func heapFlags(of pid: Int32) -> [String] {
        // Read to its end: /proc files have no size, and a read by size stops early.
        guard let file = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps"), let data = try? file.readToEnd() else { return [] }
        let smaps = String(decoding: data, as: UTF8.self)
        var flags: [String] = []
        var inHeap = false
        for line in smaps.split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.contains("-") {
                inHeap = line.hasSuffix("[heap]")
            } else if inHeap, line.hasPrefix("VmFlags:") {
                flags.append(String(line))
            }
        }
        return flags
    }
}

import Foundation
@testable import RestMap
import RestMapJSON
import Testing

/// The stage profile (`restmap map --profile`): CPU time lands in the stages that spent it, on the
/// threads that spent it, and the serial fraction and Amdahl's prediction follow from it.
@Suite("The stage profile")
struct StageProfileTests {
    func mapper() throws -> Mapper { try Fixture.mapper(yaml: ParallelMappingTests.schema) }

    /// Burns about `milliseconds` of this thread's CPU.
    static func spin(milliseconds: Int) {
        let end = StageProfile.threadCPU() + .milliseconds(milliseconds)
        var value = 0
        while StageProfile.threadCPU() < end { value &+= 1 }
        #expect(value > 0)
    }

    @Test("Measured CPU time goes to its stage on the measuring thread; the serial fraction counts serial stages and unclaimed time")
    func stagesAndSerialFraction() {
        let profile = StageProfile()
        profile.measure(.map) { Self.spin(milliseconds: 30) }
        profile.measure(.cut) { Self.spin(milliseconds: 10) }
        let threads = profile.cpuByThread
        #expect(threads.count == 1)
        let mapped = StageProfile.seconds(threads[0][.map] ?? .zero)
        let cut = StageProfile.seconds(threads[0][.cut] ?? .zero)
        #expect(mapped >= 0.029 && mapped < 0.2, "\(mapped)")
        #expect(cut >= 0.009 && cut < 0.2, "\(cut)")
        // Everything claimed: the cut is the serial part.
        let claimed = (threads[0][.map] ?? .zero) + (threads[0][.cut] ?? .zero)
        #expect(abs(profile.serialFraction(totalCPU: claimed) - cut / (cut + mapped)) < 1e-9)
        // Unclaimed time counts as serial.
        let fraction = profile.serialFraction(totalCPU: claimed * 2)
        #expect(abs(fraction - (cut + (cut + mapped)) / (2 * (cut + mapped))) < 1e-9)
        #expect(abs(StageProfile.predictedSpeedUp(serialFraction: 0.02, jobs: 16) - 1 / (0.02 + 0.98 / 16)) < 1e-12)
        let report = profile.report(totalCPU: claimed)
        #expect(report.contains("map") && report.contains("cut *") && report.contains("serial fraction"), "\(report)")
    }

    @Test("A worker thread's time outside every stage is untimed, not serial")
    func workersUntimedTimeIsNotSerial() async {
        let profile = StageProfile()
        profile.measure(.cut) { Self.spin(milliseconds: 10) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            SystemThread.start {
                let start = StageProfile.threadCPU()
                profile.measure(.map) { Self.spin(milliseconds: 20) }
                Self.spin(milliseconds: 20)  // the worker's own business: no stage
                profile.threadEnds(since: start)
                done.resume()
            }
        }
        let untimed = StageProfile.seconds(profile.untimedOnWorkers)
        #expect(untimed >= 0.019 && untimed < 0.2, "\(untimed)")
        let threads = profile.cpuByThread
        let cut = threads[0][.cut] ?? .zero, mapped = threads[1][.map] ?? .zero
        let total = cut + mapped + profile.untimedOnWorkers
        // Everything is claimed or untimed on a worker: only the cut is serial.
        #expect(abs(profile.serialFraction(totalCPU: total) - StageProfile.seconds(cut) / StageProfile.seconds(total)) < 1e-9)
        #expect(profile.report(totalCPU: total).contains("untimed"))
    }

    @Test("Given the calling thread's CPU time, only its unclaimed time is serial; other threads' time outside any accounting is not")
    func callerTimeIsTheSerialRemainder() {
        let profile = StageProfile()
        profile.measure(.cut) { Self.spin(milliseconds: 10) }
        let ms = Duration.milliseconds
        let cut = profile.cpuByThread[0][.cut] ?? .zero
        // The caller spent 10 ms more than it claimed; the process 30 ms more than that (threads
        // ending, a thread that never reports).
        let caller = cut + ms(10), total = cut + ms(40)
        let fraction = profile.serialFraction(totalCPU: total, callerCPU: caller)
        #expect(abs(fraction - StageProfile.seconds(cut + ms(10)) / StageProfile.seconds(total)) < 1e-9)
        // Without the caller's time, everything unclaimed counts as serial.
        #expect(abs(profile.serialFraction(totalCPU: total) - 1) < 1e-9)
        let report = profile.report(totalCPU: total, callerCPU: caller)
        #expect(report.contains("threads") && report.contains("30.0"), "\(report)")
        // The whole CPU time is shown, what every share is of.
        let totalRow = report.split(separator: "\n").first { $0.hasPrefix("total") }
        #expect(totalRow?.contains(StageProfile.format("%.1f", StageProfile.seconds(total) * 1000) + " ") == true, "\(report)")
    }

    @Test("A thread that works for one pool after another counts each one's untimed time once, in one column")
    func untimedTimeOfAReusedThread() async throws {
        let profile = StageProfile()
        let idle = IdleThreads(lifetime: .seconds(30))
        for _ in 0..<3 {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                SystemThread.start({
                    let start = StageProfile.threadCPU()
                    profile.measure(.map) { Self.spin(milliseconds: 5) }
                    Self.spin(milliseconds: 20)
                    profile.threadEnds(since: start)
                    done.resume()
                }, idle: idle)
            }
            // The next body goes to the same thread once it waits idle (10 s at most).
            for _ in 0..<1000 where idle.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(profile.cpuByThread.count == 2, "the caller and the one reused thread")
        // 3 × 20 ms untimed; counting the thread's whole CPU time each time would give about 135 ms.
        let untimed = StageProfile.seconds(profile.untimedOnWorkers)
        #expect(untimed >= 0.059 && untimed < 0.11, "\(untimed)")
    }

    @Test("A split body is profiled on every thread: parts parse, map and merge on workers, the caller counts between the merge's phases")
    func splitBodyProfile() throws {
        let mapper = try mapper()
        let body = ParallelMappingTests.body()
        let profile = StageProfile()
        let result = try mapper.map(Response(path: "/repos", body: body), options: MappingOptions(jobs: 2, profile: profile))
        #expect(result.records.count > 4000)
        let threads = profile.cpuByThread
        #expect(threads.count == 3, "the caller and two workers: \(threads)")
        #expect(threads[0][.merge, default: .zero] > .zero && threads[0][.cut, default: .zero] > .zero)
        #expect(threads[0][.parse] == nil && threads[0][.map] == nil, "the caller neither parses nor maps")
        for worker in threads.dropFirst() {
            #expect(worker[.parse, default: .zero] > .zero && worker[.map, default: .zero] > .zero)
            #expect(worker[.merge] == nil)
        }
        // The workers merge the parts by identification.
        #expect(threads.dropFirst().reduce(Duration.zero) { $0 + $1[.claim, default: .zero] } > .zero)
    }

    @Test("One thread: a stream's stages are all on the calling thread, and rendering is timed where it runs")
    func streamProfile() throws {
        let mapper = try mapper()
        let profile = StageProfile()
        var written = 0
        try RecordWriter.writeStream(Response(path: "/repos", body: []), from: InMemorySource(ParallelMappingTests.body()), mapper: mapper,
                                     options: StreamOptions(input: .array, profile: profile), format: .ndjson,
                                     write: { written += $0.count }, failed: { _ in })
        #expect(written > 0)
        let threads = profile.cpuByThread
        #expect(threads.count == 1)
        for stage in [StageProfile.Stage.read, .cut, .parse, .map, .merge, .claim, .render] {
            #expect(threads[0][stage, default: .zero] > .zero, "\(stage): \(threads[0])")
        }
    }

    /// Streams `contents` from a regular file with two jobs and a profile; the CPU time of each
    /// stage on each thread (thread 0 is the caller).
    func profileOfAFile(_ contents: [UInt8], input: StreamInput) throws -> [[StageProfile.Stage: Duration]] {
        try withTemporaryFile(contents) { descriptor in
            let profile = StageProfile()
            var written = 0
            try RecordWriter.writeStream(Response(path: "/repos", body: []), from: FileDescriptorSource(descriptor: descriptor), mapper: mapper(),
                                         options: StreamOptions(input: input, jobs: 2, batchBytes: 64 << 10, profile: profile),
                                         format: .ndjson, write: { written += $0.count }, failed: { _ in })
            #expect(written > 0)
            let threads = profile.cpuByThread
            #expect(threads.count == 3, "the caller and two workers: \(threads)")
            return threads
        }
    }

    @Test("An array in a file on two threads: the workers find where their chunks begin, read and cut them; the caller reads only what comes before the array")
    func positionalArrayProfile() throws {
        let threads = try profileOfAFile(ParallelMappingTests.body(), input: .array)
        for stage in [StageProfile.Stage.read, .scan, .split, .parse, .map, .claim] {
            #expect(threads[0][stage] == nil, "the caller does not \(stage): \(threads[0])")
        }
        let workers = threads.dropFirst()
        for stage in [StageProfile.Stage.scan, .split, .parse, .map, .claim, .render] {
            #expect(workers.contains { $0[stage, default: .zero] > .zero }, "\(stage) on a worker: \(Array(workers))")
        }
        #expect(!StageProfile.Stage.scan.isSerial && !StageProfile.Stage.split.isSerial)
    }

    @Test("NDJSON in a file on two threads: the workers read, split and check identities; the caller only hands over and writes")
    func positionalNDJSONProfile() throws {
        let threads = try profileOfAFile(Array(ParallelMappingTests.elements().joined(separator: "\n").utf8), input: .representations(entity: "Repo"))
        for stage in [StageProfile.Stage.read, .cut, .pread, .split, .parse, .map, .claim] {
            #expect(threads[0][stage] == nil, "the caller does not \(stage): \(threads[0])")
        }
        let workers = threads.dropFirst()
        for stage in [StageProfile.Stage.pread, .split, .parse, .map, .claim, .render] {
            #expect(workers.contains { $0[stage, default: .zero] > .zero }, "\(stage) on a worker: \(Array(workers))")
        }
        #expect(!StageProfile.Stage.pread.isSerial && !StageProfile.Stage.claim.isSerial)
    }
}

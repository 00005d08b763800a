import Dispatch
import NIOCore
import NIOPosix
import Synchronization

extension RestClient {
    /// Makes the event loops every client's connections run on (NIO's singleton group) Swift
    /// concurrency's global executor: the task awaiting a response then resumes on the thread
    /// that read it, instead of being handed to the cooperative pool and back for every chunk of
    /// every response. Mapping a response then moves off the event loops (to Dispatch's threads),
    /// so it does not hold up reading the next one.
    ///
    /// For a program whose main work is the client (as `restmap get` and `restmap send` are):
    /// call it once, from the main thread, before any task starts.
    /// - Returns: whether the event loops became the global executor.
    @discardableResult
    public static func runTasksOnEventLoops() -> Bool {
        let installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        tasksRunOnEventLoops.store(installed, ordering: .releasing)
        return installed
    }

    private static let tasksRunOnEventLoops = Atomic(false)

    /// Runs `work` (mapping, rendering: anything that keeps a thread busy) off the event loops
    /// when tasks run on them (`runTasksOnEventLoops`), else right here.
    public static func offEventLoops<Output: Sendable>(_ work: @escaping @Sendable () -> Output) async -> Output {
        guard tasksRunOnEventLoops.load(ordering: .acquiring) else { return work() }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

import DequeModule
import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// A fixed set of threads the project owns for blocking disk I/O (open, pread, write, fsync,
/// rename, directory walks). Async code hands work over with `run` and awaits it through a
/// checked continuation, so nothing blocks the cooperative pool.
public final class BlockingIOPool: Sendable {
    private typealias Job = @Sendable () -> Void

    private struct State {
        var jobs = Deque<Job>()
        var stopped = false
    }

    private let state = NIOLockedValueBox(State())
    private let available = DispatchSemaphore(value: 0)
    private let threadCount: Int

    /// Starts `threads` threads named `name-N`.
    public init(threads: Int, name: String = "squeeze-io") {
        threadCount = max(1, threads)
        for index in 0..<threadCount {
            let thread = Thread { [self] in self.workLoop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Runs `body` on a pool thread and returns its result. The continuation resumes exactly
    /// once: with the result, the error, or `IOPoolError.stopped` if the pool was shut down.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = state.withLockedValue { state in
                guard !state.stopped else { return false }
                state.jobs.append {
                    do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
                }
                return true
            }
            if accepted {
                available.signal()
            } else {
                continuation.resume(throwing: IOPoolError.stopped)
            }
        }
    }

    /// Runs `body` on a thread of its own, for a blocking step outside any pool's life (a start-up
    /// open, say), so it still keeps off the cooperative pool.
    public static func runOnce<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let pool = BlockingIOPool(threads: 1, name: "squeeze-once")
        defer { pool.shutdown() }
        return try await pool.run(body)
    }

    /// Lets queued jobs finish, then ends the threads. Later `run` calls fail with `.stopped`.
    public func shutdown() {
        let first = state.withLockedValue { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        for _ in 0..<threadCount { available.signal() }
    }

    private func workLoop() {
        while true {
            available.wait()
            let next: Job?? = state.withLockedValue { state in
                if let job = state.jobs.popFirst() { return .some(job) }
                return state.stopped ? .some(nil) : nil
            }
            switch next {
            case .some(.some(let job)): job()
            case .some(.none): return
            case .none: continue
            }
        }
    }
}

import DequeModule
import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Threads of the project's own that compress `BlockTask`s with one engine setting, each with
/// its own `BlockCompressor`. Shared by every `ParallelGzipWriter` of a command, so compressing
/// many files in a row starts the threads once. Stopped by `shutdown` or when released.
public final class DeflateThreads: Sendable {
    /// The setting every block is compressed with.
    public let setting: EngineSetting
    /// How many threads compress.
    public let count: Int
    private let queue = NIOLockedValueBox(Deque<BlockTask>())
    private let queued = DispatchSemaphore(value: 0)
    private let stopping = NIOLockedValueBox(false)

    /// Starts `count` threads (at least one).
    /// - Throws: `EngineError` or `ZlibError` when the engine cannot be set up.
    public init(setting: EngineSetting, count: Int) throws {
        _ = try BlockCompressor(setting: setting)  // fail here, not on a thread, if it cannot be set up
        self.setting = setting
        self.count = max(1, count)
        for index in 0..<self.count {
            let thread = Thread { [queue, queued, stopping] in
                let compressor = try? BlockCompressor(setting: setting)
                while true {
                    queued.wait()
                    if stopping.withLockedValue({ $0 }) { return }
                    guard let task = queue.withLockedValue({ $0.popFirst() }) else { continue }
                    task.run(with: compressor)
                }
            }
            thread.name = "squeeze-deflate-\(index)"
            thread.start()
        }
    }

    deinit {
        shutdown()
    }

    /// Queues a block for the next free thread.
    func submit(_ task: BlockTask) {
        queue.withLockedValue { $0.append(task) }
        queued.signal()
    }

    /// Ends the threads once each finishes its block; blocks still queued are never run.
    public func shutdown() {
        let first = stopping.withLockedValue { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        for _ in 0..<count { queued.signal() }
    }
}

import Dispatch
import NIOConcurrencyHelpers

/// One block of a stream on its way through `ParallelGzipWriter`: its input and the input
/// before it (the dictionary), then the compressed result, handed over under a lock and
/// announced by a semaphore the writer waits on.
final class BlockTask: Sendable {
    /// The block's input.
    let input: [UInt8]
    /// The block before it (only its last 32 KiB are used), or empty for the first block.
    let previous: [UInt8]
    /// Whether the block ends the member.
    let isLast: Bool
    private let result = NIOLockedValueBox<Result<CompressedBlock, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(input: [UInt8], previous: [UInt8], isLast: Bool) {
        self.input = input
        self.previous = previous
        self.isLast = isLast
    }

    /// Compresses the block with `compressor` and signals the waiter.
    func run(with compressor: BlockCompressor?) {
        let outcome = Result<CompressedBlock, any Error> {
            guard let compressor else { throw EngineError(engine: .zlib, operation: "start", message: "the compressor thread could not set up its engine") }
            return try input.withUnsafeBytes { block in
                try previous.withUnsafeBytes { dictionary in
                    try compressor.compress(block, dictionary: dictionary, isLast: isLast)
                }
            }
        }
        result.withLockedValue { $0 = outcome }
        done.signal()
    }

    /// Whether the result is in (`wait` would not block).
    var isDone: Bool {
        result.withLockedValue { $0 != nil }
    }

    /// Blocks until the block is compressed; its result.
    func wait() throws -> CompressedBlock {
        done.wait()
        guard let outcome = result.withLockedValue({ $0 }) else { preconditionFailure("signalled without a result") }
        return try outcome.get()
    }
}

import SqueezeProtocol
import Synchronization

/// One slot's zlib streams, reused from item to item. The slot awaits each compression before
/// it starts the next, so the mutex is never contended; it is what makes handing the streams
/// to a compression thread honest.
final class SlotCompressor: Sendable {
    private let compressor = Mutex(ItemCompressor())

    /// Compresses every block of `item`, checking `shouldStop` between blocks.
    func compress(_ item: WorkAssignment, shouldStop: @Sendable () -> Bool) throws -> WorkResult? {
        try compressor.withLock { compressor in
            try compressor.compress(item, shouldStop: shouldStop)
        }
    }
}

import NIOConcurrencyHelpers
import SqueezeProtocol

/// One slot's zlib streams, reused from item to item. The slot awaits each compression before
/// it starts the next, so the lock is never contended; it is what makes handing the streams
/// to a compression thread honest.
///
/// `@unchecked Sendable`: `ItemCompressor` holds zlib streams and is not `Sendable`, so the box
/// is not either; the streams are only ever reached inside `withLockedValue` below.
final class SlotCompressor: @unchecked Sendable {
    private let compressor: NIOLockedValueBox<ItemCompressor>

    /// A slot's compressor; `wholeTableLieForTesting` as in `WorkerConfiguration`.
    init(wholeTableLieForTesting: Bool = false) {
        compressor = NIOLockedValueBox(ItemCompressor(wholeTableLieForTesting: wholeTableLieForTesting))
    }

    /// Compresses every block of `item`, checking `shouldStop` between blocks.
    func compress(_ item: WorkAssignment, phases: inout ItemPhases, shouldStop: @Sendable () -> Bool) throws -> WorkResult? {
        try compressor.withLockedValue { compressor in
            try phases.time(\.compressMicros) { try compressor.compress(item, shouldStop: shouldStop) }
        }
    }

    /// Compresses every block of a by-reference `item` into pieces on shared storage.
    func compress(_ item: RefAssignment, phases: inout ItemPhases, shouldStop: @Sendable () -> Bool) throws -> RefResult? {
        try compressor.withLockedValue { compressor in
            try compressor.compress(item, phases: &phases, shouldStop: shouldStop)
        }
    }
}

import SqueezeProtocol

/// An answer admitted by the coordinator, waiting for its check before its blocks go to the
/// writers. These wait in a stream whose length is bounded by the dispatch window: an item
/// that is answered but not written holds the window.
struct VerificationRequest: Sendable {
    /// The item and the worker that answered it.
    var item: ItemKey
    var worker: [UInt8]
    /// The blocks that were sent, and what to hand the writers once checked.
    var expected: [BlockRef]
    var blocks: [PendingBlock?]
    /// One per block.
    var checks: [CheckedBlock]
    /// What a verifier said, when the coordinator checks because of it.
    var verdict = VerifierVerdict.none
}

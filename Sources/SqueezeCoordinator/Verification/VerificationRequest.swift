import SqueezeProtocol

/// An answer admitted by the coordinator, waiting for its check before its blocks go to the
/// writers. These wait in a stream whose length is bounded by the dispatch window: an item
/// that is answered but not written holds the window.
struct VerificationRequest: Sendable {
    /// The item and the worker that answered it.
    var item: ItemKey
    var worker: PeerID
    /// The blocks that were sent, and what to hand the writers once checked.
    var expected: [BlockRef]
    var blocks: [PendingBlock?]
    /// One per block.
    var checks: [CheckedBlock]
    /// What a verifier said, when the coordinator checks because of it.
    var verdict = VerifierVerdict.none

    /// Keeps what the check read of each piece (one CRC per block checked, in order, as
    /// findings come), and who said so (`reporter`, nil for the coordinator): a stitched
    /// segment of them is checked against it.
    mutating func recordStoredCRCs(_ crcs: [UInt32?], reporter: PeerID? = nil) {
        var next = crcs.makeIterator()
        for position in checks.indices {
            if case .skipped = checks[position] { continue }
            guard let crc = next.next() else { return }
            if case .piece(var piece)? = blocks[position] {
                piece.storedCRC = crc
                piece.storedCRCReporter = crc == nil ? nil : reporter
                blocks[position] = .piece(piece)
            }
        }
    }
}

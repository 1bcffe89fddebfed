import SqueezeProtocol

/// A batch's answer out with a verifier (`verifyBatch`), or with an auditor of a verifier's good
/// verdict: only that worker may answer it, once.
struct PendingBatchCheck: Sendable {
    /// The batch.
    var item: ItemKey
    /// The worker whose answer it is, and the attempt its pieces carry.
    var worker: PeerID
    var attempt: AttemptID
    /// The answer: a piece per file, in position order (their CRCs are the claims).
    var pieces: [PieceReport]
    /// Who was asked, and when: past the deadline the coordinator checks the batch itself, as a batch.
    var verifier: PeerID
    var sentAt: ContinuousClock.Instant
    /// For an audit: the verifier whose good verdict this check audits (nil for a first check).
    var auditOf: PeerID? = nil
    /// The listing check of the batch's scan that rode in its `verifyBatch`, by check id.
    var listingCheck: UInt64? = nil
}

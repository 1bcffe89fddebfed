/// A segment check out with a verifier: only that verifier may answer it, once.
struct PendingSegmentCheck: Sendable {
    var check: SegmentCheck
    /// Who was asked, and when: past the deadline, the coordinator checks the segment itself.
    var verifier: PeerID
    var sentAt: ContinuousClock.Instant
}

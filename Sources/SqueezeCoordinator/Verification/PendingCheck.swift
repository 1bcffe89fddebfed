import SqueezeProtocol

/// A check out with a verifier: only that verifier may answer it, once.
struct PendingCheck: Sendable {
    /// The answer being checked, as the local check would take it.
    var request: VerificationRequest
    /// Who was asked.
    var verifier: PeerID
    /// When: past the deadline, the coordinator checks the answer itself.
    var sentAt: ContinuousClock.Instant
    /// The claimed CRC of each block sent, and whether it went by reference.
    var claims: [UInt32]
    var byReference: [Bool]
}

/// Which "good" verdicts the coordinator checks again itself: one in `interval`, at random, so
/// a verifier cannot tell which of its verdicts will be looked at. A verifier cannot say
/// "good" to a remote block without decoding it (it is not told the CRC), but on shared
/// storage it could read the source and repeat its CRC; the audit is what catches that, at a
/// cost of 1/`interval` of the coordinator doing every check itself.
struct VerifierAudit: Sendable {
    /// One good verdict in this many, on average, is checked again.
    let interval: UInt64

    /// An audit of one verdict in `interval` (at least 1: every verdict).
    init(interval: Int = 256) {
        self.interval = UInt64(max(1, interval))
    }

    /// Whether the verdict drawn `roll` (uniform over UInt64) is checked again.
    func shouldAudit(roll: UInt64) -> Bool {
        roll % interval == 0
    }
}

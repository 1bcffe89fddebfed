/// Which "good" verdicts the coordinator checks again itself: each verifier's first, then one
/// in `interval`. A verifier cannot say "good" to a remote block without decoding it (it is
/// not told the CRC), but on shared storage it could read the source and repeat its CRC; the
/// audit is what catches that, at a cost of 1/`interval` of the coordinator doing every check.
struct VerifierAudit: Sendable {
    /// One good verdict in this many is checked again.
    let interval: Int
    private var counts: [[UInt8]: Int] = [:]

    /// An audit of one verdict in `interval` (at least 1: every verdict).
    init(interval: Int = 32) {
        self.interval = max(1, interval)
    }

    /// Counts a good verdict from `verifier`; true when this one is checked again.
    mutating func shouldAudit(_ verifier: [UInt8]) -> Bool {
        let count = counts[verifier, default: 0]
        counts[verifier] = count &+ 1
        return count % interval == 0
    }
}

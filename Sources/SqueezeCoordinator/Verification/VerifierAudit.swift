/// Which "good" verdicts are checked again, by a third principal or the coordinator: one in
/// `interval`, drawn from the coordinator's generator, so neither the verifier nor the
/// worker it vouches for can tell which of their answers will be looked at. A verifier cannot
/// say "good" to a remote block without decoding it (it is not told the CRC), but one that
/// colludes with the compressing worker can (it is told the true CRCs by its partner); the
/// audit is what catches that.
struct VerifierAudit: Sendable {
    /// One good verdict in this many, on average, is checked again.
    let interval: UInt64

    /// An audit of one verdict in `interval` (at least 1: every verdict).
    init(interval: Int = 16) {
        self.interval = UInt64(max(1, interval))
    }

    /// Whether the verdict drawn `roll` (uniform over UInt64) is checked again.
    func shouldAudit(roll: UInt64) -> Bool {
        roll % interval == 0
    }
}

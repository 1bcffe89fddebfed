/// Why the coordinator checks an answer itself, and so whom a result of its check blames.
enum VerifierVerdict: Sendable, Equatable {
    /// No verifier was asked (none able, or it did not answer in time, or it could not read
    /// the bytes): the check decides alone.
    case none
    /// `verifier` said the answer is bad: confirmed before the compressing worker gets a
    /// strike; if the answer is good after all, the verifier gets it.
    case contested(by: PeerID)
    /// `verifier` said good and is audited (by a third principal, or here): if the answer is
    /// bad after all, it and the compressing worker colluded, and both are quarantined.
    case audited(PeerID)
    /// `verifier` said good, and `auditor`, auditing it, said bad: confirmed here. Bad: the
    /// verifier and the compressing worker colluded; good: the auditor gets a strike.
    case auditContested(verifier: PeerID, auditor: PeerID)
}

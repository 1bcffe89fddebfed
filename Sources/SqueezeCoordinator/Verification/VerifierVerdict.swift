/// Why the coordinator checks an answer itself, and so whom a result of its check blames.
enum VerifierVerdict: Sendable, Equatable {
    /// No verifier was asked (none able, or it did not answer in time, or it could not read
    /// the bytes): the check decides alone.
    case none
    /// `verifier` said the answer is bad: confirmed before the compressing worker gets a
    /// strike; if the answer is good after all, the verifier gets it.
    case contested(by: PeerID)
    /// `verifier` said good and was audited: if the answer is bad after all, both get one.
    case audited(PeerID)
}

/// A worker as the verifier choice sees it: values only, so the choice is tested without sockets.
struct VerifierCandidate: Sendable, Equatable {
    /// Its routing id.
    var id: PeerID
    /// Who stands behind it: it never checks work its own principal vouches for.
    var principal: Principal
    /// It announced the `verify` capability.
    var canVerify: Bool
    /// It is quarantined: its verdicts are not asked for.
    var quarantined: Bool
    /// It let a check run past the deadline once: it is not asked again (it still compresses).
    var late = false
    /// It sees the job's files on shared storage (needed for a check by reference).
    var seesStorage: Bool
    /// Items it holds plus checks it has not answered.
    var load: Int
}

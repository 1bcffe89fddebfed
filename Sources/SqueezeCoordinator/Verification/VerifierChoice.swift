/// Who checks an answer: a worker other than the one that compressed it, able to (announced
/// `verify`, not quarantined, never late with a check, and for a check by reference seeing the job's files), least
/// loaded first, ties to the smaller routing id so the same state gives the same choice. Nil
/// when there is none: the coordinator checks the answer itself.
enum VerifierChoice {
    /// The verifier for an answer from `compressor`, avoiding `excluded` (verifiers that
    /// already failed to answer this check).
    static func choose(among candidates: [VerifierCandidate], compressor: PeerID, byReference: Bool,
                       excluding excluded: Set<PeerID> = []) -> PeerID? {
        var best: VerifierCandidate?
        for candidate in candidates where candidate.id != compressor && candidate.canVerify && !candidate.quarantined && !candidate.late
            && (!byReference || candidate.seesStorage) && !excluded.contains(candidate.id) {
            if let current = best {
                guard candidate.load < current.load
                    || (candidate.load == current.load && candidate.id < current.id) else { continue }
            }
            best = candidate
        }
        return best?.id
    }
}

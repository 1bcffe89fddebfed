/// Who checks an answer: a worker of another principal than every party that vouches for it
/// (the worker that compressed it; for an audit, also the verifier that said good), able to
/// (announced `verify`, not quarantined, never late with a check, and for a check by reference
/// seeing the job's files), least loaded first, ties to the smaller routing id so the same
/// state gives the same choice. Nil when there is none: the coordinator checks the answer itself.
enum VerifierChoice {
    /// The verifier for an answer from `compressor` that `vouchers` (the compressor's principal
    /// and any verifier's) stand behind, avoiding `excluded` (verifiers that already failed to
    /// answer this check). Nil vouchers: a check that must stay independent of someone the
    /// coordinator cannot place (a worker that left), so only the coordinator can make it.
    static func choose(among candidates: [VerifierCandidate], compressor: PeerID, byReference: Bool,
                       independentOf vouchers: [Principal]?, excluding excluded: Set<PeerID> = []) -> PeerID? {
        guard let vouchers else { return nil }
        var best: VerifierCandidate?
        for candidate in candidates where isAble(candidate, compressor: compressor, byReference: byReference, excluding: excluded)
            && vouchers.allSatisfy({ candidate.principal.isIndependent(of: $0) }) {
            if let current = best {
                guard candidate.load < current.load
                    || (candidate.load == current.load && candidate.id < current.id) else { continue }
            }
            best = candidate
        }
        return best?.id
    }

    /// Whether some candidate could check the answer but for the rule of independent
    /// principals: the coordinator then checks it because the workers cannot vouch for each
    /// other (counted, and said in `status`).
    static func lacksIndependence(among candidates: [VerifierCandidate], compressor: PeerID, byReference: Bool,
                                  excluding excluded: Set<PeerID> = []) -> Bool {
        candidates.contains { isAble($0, compressor: compressor, byReference: byReference, excluding: excluded) }
    }

    private static func isAble(_ candidate: VerifierCandidate, compressor: PeerID, byReference: Bool, excluding excluded: Set<PeerID>) -> Bool {
        candidate.id != compressor && candidate.canVerify && !candidate.quarantined && !candidate.late
            && (!byReference || candidate.seesStorage) && !excluded.contains(candidate.id)
    }
}

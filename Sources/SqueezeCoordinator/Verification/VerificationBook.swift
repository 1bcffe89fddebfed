/// The coordinator's result-check state: what it read for items out with remote workers,
/// who sent refused results, and which jobs skip the check.
struct VerificationBook: Sendable {
    /// Strikes and quarantined workers.
    var quarantine = Quarantine()
    /// Per item sent to a remote worker and not yet checked: each block's source CRC and dictionary.
    var sources: [ItemKey: [BlockRef: SourceBlock]] = [:]
    /// Answers refused by the check since start.
    var refusedResults = 0
    /// Jobs that run without the check (`--no-verify` on the coordinator or the job).
    var uncheckedJobs: Set<JobID> = []
    /// Checks out with verifying workers, by check id.
    var pending: [UInt64: PendingCheck] = [:]
    /// Checks of batches out with verifying workers, by check id.
    var batches: [UInt64: PendingBatchCheck] = [:]
    /// Checks of stitched segments out with verifying workers, by check id.
    var segments: [UInt64: PendingSegmentCheck] = [:]
    /// Checks of listings by workers, out with verifying workers or here, by check id.
    var listings: [UInt64: PendingListingCheck] = [:]
    /// Checks of listings waiting for their batch's `verifyBatch`, by scan item.
    var deferredListings: [ItemKey: DeferredListingCheck] = [:]
    /// Checks waiting to leave with the next message to their verifier.
    var outgoing = OutgoingChecks()
    var nextCheckID: UInt64 = 1
    /// Which good verdicts the coordinator checks again.
    var audit = VerifierAudit()
    /// Answers checked by another worker, and by the coordinator itself, since start.
    var checkedByWorkers = 0
    var checkedLocally = 0
    /// Answers checked here because every able worker shares a principal with the answer's
    /// compressor (or, for an audit, its verifier), since start.
    var checkedForIndependence = 0
    /// Good verdicts audited by a third principal, and here, since start.
    var auditsByWorkers = 0
    var auditsLocally = 0
    /// Audits that found a verifier had called a bad answer good, since start.
    var collusionsCaught = 0
    /// Outputs the coordinator checked again after a caught collusion, and wrote again, since start.
    var outputsRechecked = 0
    var outputsRedone = 0
    /// Stitched segments sent to another worker for their check, checked by the coordinator,
    /// and stitches refused, since start.
    var segmentsCheckedByWorkers = 0
    var segmentsCheckedLocally = 0
    var refusedStitches = 0

    /// Workers (by identity) that let a check pass its deadline: not chosen as verifiers again.
    var lateVerifiers: Set<[UInt8]> = []
    /// Items a shared-storage worker said it could not read, sent once more to another worker.
    var retriedReads: Set<ItemKey> = []

    /// Who each connected worker is for strikes and quarantine, by routing id: its CURVE key
    /// (the ZAP user id) when it connected with one, so a new worker id does not escape a
    /// quarantine; absent: its routing id.
    var identities: [PeerID: [UInt8]] = [:]
    /// What the transport said of each connected worker when it announced itself.
    var origins: [PeerID: ConnectionOrigin] = [:]

    /// The key `peer`'s strikes are counted under.
    func identity(of peer: PeerID) -> [UInt8] { identities[peer] ?? peer.bytes }

    /// The strike key for a worker with `routingID` that connected with ZAP user id `userID`.
    /// A leading 0 byte keeps key identities apart from routing ids (a worker id has no
    /// control characters).
    static func identity(routingID: PeerID, userID: String?) -> [UInt8] {
        guard let userID, !userID.isEmpty else { return routingID.bytes }
        return [0] + Array("curve:\(userID)".utf8)
    }

    /// Whether any check is out with a verifier (or, for listings, here).
    var hasChecksOut: Bool { !pending.isEmpty || !batches.isEmpty || !segments.isEmpty || !listings.isEmpty || !deferredListings.isEmpty }

    /// Checks `verifier` has not answered yet.
    func pendingCount(of verifier: PeerID) -> Int {
        pending.values.reduce(0) { $0 + ($1.verifier == verifier ? 1 : 0) }
            + segments.values.reduce(0) { $0 + ($1.verifier == verifier ? 1 : 0) }
            + batches.values.reduce(0) { $0 + ($1.verifier == verifier ? 1 : 0) }
            + listings.values.reduce(0) { $0 + ($1.verifier == verifier ? 1 : 0) }
    }

    /// Forgets what was kept for a job that ended.
    mutating func forget(job: JobID) {
        uncheckedJobs.remove(job)
        sources = sources.filter { $0.key.job != job }
        pending = pending.filter { $0.value.request.item.job != job }
        segments = segments.filter { $0.value.check.file.job != job }
        batches = batches.filter { $0.value.item.job != job }
        listings = listings.filter { $0.value.item.job != job }
        outgoing.forget(job: job)
        retriedReads = retriedReads.filter { $0.job != job }
    }
}

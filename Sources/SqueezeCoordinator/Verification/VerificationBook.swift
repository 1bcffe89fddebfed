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
    var uncheckedJobs: Set<UInt64> = []

    /// Forgets what was kept for a job that ended.
    mutating func forget(job: UInt64) {
        uncheckedJobs.remove(job)
        sources = sources.filter { $0.key.job != job }
    }
}

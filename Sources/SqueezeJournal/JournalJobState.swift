/// Where a job stands, as the journal records it.
public enum JournalJobState: String {
    /// Submitted and not finished: a restarted coordinator resumes it.
    case running
    /// Every file was processed (some may have failed or been skipped; see the totals).
    case completed
    /// The job stopped on an error before processing every file.
    case failed
    /// A client or the operator cancelled the job.
    case cancelled
}

extension JournalJobState: Sendable {}

extension JournalJobState: CaseIterable {}

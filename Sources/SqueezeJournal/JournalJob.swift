import Foundation

/// One job as the journal records it: what was asked, by whom, and how far it got.
public struct JournalJob {
    /// The job's id, unique in its journal (see `Journal.nextJobID()`).
    public var id: UInt64
    /// The client's request (JSON), opaque to the journal: a restarted coordinator decodes it to resume the job.
    public var request: Data
    /// The source, for display (history).
    public var source: String
    /// The destination, for display (history).
    public var destination: String
    /// Where the job stands.
    public var state: JournalJobState
    /// Who submitted it: a CURVE public key, a user name, "local"...
    public var submittedBy: String
    /// When it was submitted.
    public var createdAt: Date
    /// When it finished; nil while it runs.
    public var finishedAt: Date?
    /// Its counts as last recorded.
    public var totals: JournalTotals
    /// Why it failed or was cancelled, or any last word for the history; nil when there is none.
    public var message: String?

    /// A job record, with every field given.
    public init(
        id: UInt64,
        request: Data,
        source: String,
        destination: String,
        state: JournalJobState,
        submittedBy: String,
        createdAt: Date,
        finishedAt: Date? = nil,
        totals: JournalTotals = JournalTotals(),
        message: String? = nil
    ) {
        self.id = id
        self.request = request
        self.source = source
        self.destination = destination
        self.state = state
        self.submittedBy = submittedBy
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.totals = totals
        self.message = message
    }
}

extension JournalJob: Sendable {}

extension JournalJob: Equatable {}

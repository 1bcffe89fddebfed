/// Shared-storage worker → coordinator: the pieces of one item are written (and synced when
/// asked); their sizes and CRCs.
public struct RefResult: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item.
    public var itemID: UInt64
    /// The attempt the pieces were written under.
    public var attempt: UInt64
    /// One report per block of the assignment, in order.
    public var pieces: [PieceReport]

    /// Creates a result.
    public init(jobID: UInt64, itemID: UInt64, attempt: UInt64, pieces: [PieceReport]) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.pieces = pieces
    }
}

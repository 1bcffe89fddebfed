/// Coordinator → the shared-storage worker whose attempt it accepted: rename that attempt's
/// whole members (one-block files, written as finished `.gz` pieces) into place. Sent once per
/// item, only after the answer passed its check, and never for another attempt of the item:
/// at most one attempt of a file is ever published. Answered by `published`.
public struct PublishGrant: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item.
    public var itemID: UInt64
    /// The accepted attempt: the pieces' names carry it.
    public var attempt: UInt64
    /// The job's workspace (path bytes).
    public var workspace: [UInt8]
    /// Whether the pieces must be made durable before they are renamed (`syncfs`): they were
    /// written without an fsync each, through the coordinator's kernel.
    public var syncPieces: Bool
    /// The members, in any order.
    public var members: [PublishMember]

    /// Creates a grant.
    public init(jobID: UInt64, itemID: UInt64, attempt: UInt64, workspace: [UInt8], syncPieces: Bool, members: [PublishMember]) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.workspace = workspace
        self.syncPieces = syncPieces
        self.members = members
    }
}

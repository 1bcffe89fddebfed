/// Coordinator → verifying worker: blocks another worker compressed, to be decoded and
/// reported on (docs/protocol.md, "Verification items"). Carries no claimed CRC: the verifier
/// must decode the blocks to say what they hold.
public struct VerifyRequest: Sendable, Equatable {
    /// The coordinator's id for this check; the `verified` answer repeats it.
    public var checkID: UInt64
    /// The job and item whose answer is checked (for logs and cancellation).
    public var jobID: UInt64
    public var itemID: UInt64
    /// One per block of the answer, in order.
    public var blocks: [VerifyBlock]

    /// Creates a request.
    public init(checkID: UInt64, jobID: UInt64, itemID: UInt64, blocks: [VerifyBlock]) {
        self.checkID = checkID
        self.jobID = jobID
        self.itemID = itemID
        self.blocks = blocks
    }
}

/// Where a shared-storage worker writes a block's deflate data in place: in the file's
/// output `s<file>-<attempt>` in the job's workspace, at `offset`, instead of a piece file.
/// Only for blocks whose compressed length is known in advance (the `stored` engine), so
/// every block's offset is known before any is compressed and nothing is copied afterwards.
public struct RefPlacement: Sendable, Equatable {
    /// The output's attempt number, which names it; a new one whenever an earlier dispatch
    /// of the file's blocks may still be writing (fencing).
    public var attempt: UInt64
    /// Where the block's deflate data starts in the output.
    public var offset: UInt64

    /// Creates a placement.
    public init(attempt: UInt64, offset: UInt64) {
        self.attempt = attempt
        self.offset = offset
    }
}

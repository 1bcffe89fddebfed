/// A task the coordinator feeds through a bounded queue (`StageQueue`): what it tells the core
/// when the queue reaches its high watermark, and again when it drains to its low one.
enum Stage: Hashable, Sendable {
    /// The readers that load items for remote workers.
    case dispatch
    /// The scanner that reads a job's next batch.
    case scan
    /// The coordinator's own checks of answers and stitched segments.
    case check
    /// The journal's rows.
    case journal
    /// One writer partition.
    case write(partition: Int)
}

import SqueezeGzip
import SqueezeProtocol

/// An item the actor assigned to a worker, for a reader task to load from disk and send.
struct Dispatch: Sendable {
    /// The worker's ZeroMQ routing id.
    var routingID: PeerID
    /// The job.
    var job: JobID
    /// The item.
    var item: ItemID
    /// The job's engine and level.
    var setting: EngineSetting
    /// The blocks to read.
    var blocks: [DispatchBlock]
    /// The job's answers are checked: the reader keeps each block's CRC and dictionary.
    var verify = false
    /// Checks for this worker that wait for this message (`OutgoingChecks`): sent right after
    /// it, in the same wake of the endpoint.
    var checks: [VerifyRequest] = []
    /// The job is traced: the reader reports when it read the item.
    var traced = false
}

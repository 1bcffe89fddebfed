import SqueezeIO
import SqueezeProtocol

/// What the coordinator's core decides to do and the actor carries out, in order.
enum CoordinatorEffect: Sendable {
    /// A message to a worker (on the workers' endpoint).
    case send(WireMessage, to: PeerID)
    /// An item for a remote worker: a reader loads its blocks and sends it.
    case dispatch(Dispatch)
    /// A command for writer partition `partition`.
    case write(WriterCommand, partition: Int)
    /// An answer or a stitched segment for the coordinator's own check.
    case check(LocalCheck)
    /// The next batch of a job's scan.
    case scan(ScanRequest)
    /// Something for the journal, in order.
    case journal(JournalCommand)
    /// An event for job `job`'s clients.
    case jobEvent(JobEvent, job: JobID)
    /// Job `job` ended: its clients' streams end (after its `finished`).
    case endJobEvents(JobID)
    /// Remove a workspace at once: no writer runs to do it after the job's other commands.
    case removeWorkspace(JobWorkspace)
    /// Worker `peer` was registered (before its welcome goes out), or forgotten: the workers'
    /// endpoint takes more than the handshake only from registered peers.
    case registration(PeerID, registered: Bool)
}

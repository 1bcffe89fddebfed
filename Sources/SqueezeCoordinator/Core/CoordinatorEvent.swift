import SqueezeGzip
import SqueezeProtocol
import SqueezeZMQ

/// Everything that happens to the coordinator, as its core takes it: each comes with the time
/// (`CoordinatorCore.handle(_:at:)`) and leaves effects for the actor to carry out.
enum CoordinatorEvent: Sendable {
    /// The journal recorded items' members before their grants, in one transaction
    /// (`JournalCommand.granted`), or could not (`failure`, for them all).
    case grantsRecorded([ItemKey], failure: String?)
    /// A decoded message from a worker; `origin` is what the transport said of its connection.
    case workerMessage(WireMessage, from: PeerID, origin: ConnectionOrigin)
    /// A message from `peer` (worker or client) that did not decode or was not expected.
    case malformed(any Error, from: PeerID)
    /// A `workerReady` from `peer` whose body did not decode (slots 2^64, a string for a
    /// number, a field missing): counted as malformed and refused with an `error`.
    case malformedHello(any Error, from: PeerID)
    /// A message from `peer` that the workers' endpoint dropped as it read it, past its bound
    /// (`ProtocolReceiveLimits`): none of its frames was kept.
    case dropped(DroppedMessage, from: PeerID)
    /// The kernel named the process behind loopback worker `peer`'s connection (nil: it could
    /// not): its principal is known from here on.
    case peerProcess(PeerID, Int32?)
    /// A send to a worker failed.
    case workerSendFailed(PeerID, ZMQError)
    /// The workers' endpoint ticked: heartbeats, deadlines, progress, flushes.
    case tick
    /// A batch of a job's scan was read.
    case scanned(JobID, PreparedBatch)
    /// A reader loaded a dispatch for a remote worker, about to send it; `sources` is what
    /// the result check keeps of its blocks.
    case read(Dispatch, sources: [BlockRef: SourceBlock])
    /// A reader could not load some files of a dispatch.
    case readFailed(Dispatch, ReadFailures)
    /// A reader loaded a traced dispatch between these monotonic microseconds.
    case readTimed(Dispatch, from: Int64, to: Int64)
    /// A writer carried out a command: what each file it touched came to.
    case written([Result<OutputWriter.Progress, WriteFailure>])
    /// A writer partition discarded a job's temporaries.
    case writerDiscarded(JobID)
    /// A writer removed a job's workspace.
    case workspaceRemoved(JobID)
    /// The coordinator's own check of an answer is done.
    case answerChecked(VerificationRequest, BlockDefect?)
    /// The coordinator's own check of a batch's answer is done.
    case batchChecked(BatchLocalCheck, BlockDefect?)
    /// The coordinator's own check of a stitched segment is done.
    case segmentChecked(SegmentCheck, SegmentFinding)
    /// The coordinator's pass over job `id`'s outputs after a caught collusion is done.
    case outputsRechecked(JobID, OutputRecheck.Outcome)
    /// A worker's "shared" probe answer was confirmed (`failure` nil) or not.
    case storageConfirmed(StorageConfirmation, failure: String?)
    /// A job is to end as `state` (cancelled, or failed), for `reason`.
    case cancel(JobID, reason: String, as: JobState)
    /// A client sent something.
    case clientHeard(PeerID)
    /// A send to a client failed.
    case clientSendFailed(PeerID, ZMQError)
    /// A stage's queue reached its high watermark.
    case stageFull(Stage)
    /// A stage's queue drained to its low watermark.
    case stageDrained(Stage)
}

/// Every message of protocol v1, decoded.
public enum WireMessage: Sendable, Equatable {
    /// Worker → coordinator: announces the worker and its slots.
    case workerReady(WorkerHello)
    /// Coordinator → worker: the worker is registered, with the heartbeat rules.
    case welcome(Welcome)
    /// Either way, on either endpoint: the sender is alive.
    case heartbeat
    /// Coordinator → worker: a work item to compress.
    case work(WorkAssignment)
    /// Worker → coordinator: the compressed blocks of one item.
    case result(WorkResult)
    /// Worker → coordinator: an item could not be compressed.
    case itemFailed(ItemFailure)
    /// Coordinator → worker: drop every item of this job.
    case cancelJob(UInt64)
    /// Worker → coordinator: the worker is leaving; requeue its items.
    case goodbye
    /// Coordinator → peer: unknown sender; announce again.
    case unknownPeer
    /// Coordinator → worker: can you see this job's files?
    case probe(StorageProbe)
    /// Worker → coordinator: whether it sees them.
    case probeReply(ProbeReply)
    /// Coordinator → shared-storage worker: a work item by reference.
    case workRef(RefAssignment)
    /// Shared-storage worker → coordinator: the item's pieces are written.
    case resultRef(RefResult)
    /// Coordinator → shared-storage worker: join a file's pieces.
    case stitch(StitchRequest)
    /// Shared-storage worker → coordinator: the file's pieces are joined.
    case stitched(StitchResult)
    /// Coordinator → shared-storage worker: a stitched file's pieces may go.
    case discard(PieceDiscard)
    /// Shared-storage worker → coordinator: the pieces of a `discard` for this job are gone.
    case discarded(UInt64)
    /// Coordinator → shared-storage worker: rename an accepted attempt's members into place.
    case publish(PublishGrant)
    /// Shared-storage worker → coordinator: what a `publish` did.
    case published(PublishReport)
    /// Coordinator → shared-storage worker: one-block files to compress by reference.
    case batch(BatchAssignment)
    /// Coordinator → verifying worker: check a batch's pieces.
    case verifyBatch(BatchCheck)
    /// Coordinator → shared-storage worker: a slice of a directory to scan and compress.
    case scan(ScanAssignment)
    /// Shared-storage worker → coordinator: what the slice holds, and its batch's pieces.
    case scanned(ScanReport)
    /// Coordinator → verifying worker: list a slice and answer with its digest.
    case checkListing(ListingCheck)
    /// Verifying worker → coordinator: a listing's digest.
    case listingChecked(ListingChecked)
    /// Coordinator → verifying worker: check blocks another worker compressed.
    case verify(VerifyRequest)
    /// Verifying worker → coordinator: what the blocks decoded to.
    case verified(VerifyReport)
    /// Worker → coordinator: when and where an item ran, on the worker's clock.
    case timing(ItemTiming)
    /// Worker → coordinator: the worker's monotonic clock now, in microseconds.
    case clock(Int64)
    /// Coordinator → worker: start (true) or stop (false) sending `timing` and `clock`.
    case timings(Bool)
    /// Client → coordinator: start a job.
    case submit(JobRequest)
    /// Coordinator → client: the job was accepted.
    case submitted(JobAccepted)
    /// Coordinator → client: one event of a job.
    case jobEvent(JobEvent)
    /// Client → coordinator: cancel this job.
    case cancel(UInt64)
    /// Client → coordinator: ask for workers and jobs.
    case statusRequest
    /// Coordinator → client: workers and jobs.
    case statusReply(ClusterStatus)
    /// Coordinator → client: a request was refused.
    case error(ErrorReply)
    /// Client → coordinator: follow a job that already exists.
    case attach(AttachRequest)

    /// The header type byte for this message.
    public var type: MessageType {
        switch self {
        case .workerReady: .workerReady
        case .welcome: .welcome
        case .heartbeat: .heartbeat
        case .work: .work
        case .result: .result
        case .itemFailed: .itemFailed
        case .cancelJob: .cancelJob
        case .goodbye: .goodbye
        case .unknownPeer: .unknownPeer
        case .probe: .probe
        case .probeReply: .probeReply
        case .workRef: .workRef
        case .resultRef: .resultRef
        case .stitch: .stitch
        case .stitched: .stitched
        case .discard: .discard
        case .discarded: .discarded
        case .publish: .publish
        case .published: .published
        case .batch: .batch
        case .verifyBatch: .verifyBatch
        case .scan: .scan
        case .scanned: .scanned
        case .checkListing: .checkListing
        case .listingChecked: .listingChecked
        case .verify: .verify
        case .verified: .verified
        case .timing: .timing
        case .clock: .clock
        case .timings: .timings
        case .submit: .submit
        case .submitted: .submitted
        case .jobEvent: .jobEvent
        case .cancel: .cancel
        case .statusRequest: .statusRequest
        case .attach: .attach
        case .statusReply: .statusReply
        case .error: .error
        }
    }
}

/// The message types of protocol v1 (docs/protocol.md). The raw value is the header's type byte.
public enum MessageType: UInt8, Sendable, CaseIterable {
    // Worker endpoint.
    /// Worker → coordinator: identity and slots (JSON `WorkerHello`).
    case workerReady = 1
    /// Coordinator → worker: the worker is registered (JSON `Welcome`).
    case welcome = 2
    /// Either way on either endpoint: liveness, no body.
    case heartbeat = 3
    /// Coordinator → worker: blocks to compress (binary table + one payload frame per block).
    case work = 4
    /// Worker → coordinator: compressed blocks (binary table + one payload frame per block).
    case result = 5
    /// Worker → coordinator: an item could not be compressed (JSON `ItemFailure`).
    case itemFailed = 6
    /// Coordinator → worker: drop every item of a job (binary job id).
    case cancelJob = 7
    /// Worker → coordinator: leaving; requeue what it holds. No body.
    case goodbye = 8
    /// Coordinator → peer: your heartbeat came from an id I do not know; announce again. No body.
    case unknownPeer = 9
    /// Coordinator → worker: can you see this job's files? (JSON `StorageProbe`).
    case probe = 10
    /// Worker → coordinator: the answer (JSON `ProbeReply`).
    case probeReply = 11
    /// Coordinator → shared-storage worker: blocks to compress by reference (binary table).
    case workRef = 12
    /// Shared-storage worker → coordinator: pieces written (binary table).
    case resultRef = 13
    /// Coordinator → shared-storage worker: join a file's pieces into its `.gz` (binary table).
    case stitch = 14
    /// Shared-storage worker → coordinator: the file is joined (binary table).
    case stitched = 15
    /// Coordinator → shared-storage worker: remove a stitched file's pieces (binary table).
    case discard = 16
    /// Shared-storage worker → coordinator: a `discard` is done (job id, 8 bytes).
    case discarded = 17
    /// Coordinator → verifying worker: check another worker's compressed blocks (binary table,
    /// then two payload frames per inline block).
    case verify = 18
    /// Verifying worker → coordinator: what each block decoded to (binary table).
    case verified = 19
    /// Worker → coordinator, before an answer: when and on which slot the item ran (JSON
    /// `ItemTiming`). Only while timings are on (`welcome` set `timings`, or a `timings` said so).
    case timing = 27
    /// Worker → coordinator, with each heartbeat: the worker's monotonic clock in microseconds
    /// (8 bytes, signed little-endian), from which the coordinator measures its offset. Only
    /// while timings are on.
    case clock = 28
    /// Coordinator → worker: start (1) or stop (0) sending `timing` and `clock` (one byte). The
    /// coordinator turns them on while some job is traced, so untraced jobs cost no extra message.
    case timings = 29
    /// Coordinator → shared-storage worker: rename an accepted attempt's whole members into
    /// place (binary table).
    case publish = 31
    /// Shared-storage worker → coordinator: the members are in place, or why not (binary table).
    case published = 32
    /// Coordinator → shared-storage worker: one-block files to compress as whole members by
    /// reference, answered by `resultRef` (binary table).
    case batch = 33
    /// Coordinator → verifying worker: check a `batch`'s pieces (binary table); answered by
    /// `verified`.
    case verifyBatch = 34
    /// Coordinator → shared-storage worker: a slice of a directory to scan, its one-block
    /// files to compress as a batch (binary table).
    case scan = 35
    /// Shared-storage worker → coordinator: what a slice holds, and its batch's pieces
    /// (binary table, then a `resultRef` table when it has small files).
    case scanned = 36
    /// Coordinator → verifying worker: list a slice as a `scan` would, and answer with the
    /// listing's digest (binary table, then the `scan` table).
    case checkListing = 37
    /// Verifying worker → coordinator: a `checkListing`'s digest (binary table).
    case listingChecked = 38

    // Client endpoint.
    /// Client → coordinator: start a job (JSON `JobRequest`).
    case submit = 20
    /// Coordinator → client: the job was accepted (JSON `JobAccepted`).
    case submitted = 21
    /// Coordinator → client: progress of a job (JSON `JobEvent`).
    case jobEvent = 22
    /// Client → coordinator: cancel a job (binary job id).
    case cancel = 23
    /// Client → coordinator: ask for workers and jobs. No body.
    case statusRequest = 24
    /// Coordinator → client: workers and jobs (JSON `ClusterStatus`).
    case statusReply = 25
    /// Client → coordinator: follow a running or ended job (JSON `AttachRequest`); answered
    /// like `submit`, by `submitted` or `error`.
    case attach = 26
    /// Coordinator → client: a request was refused (JSON `ErrorReply`).
    case error = 30
}

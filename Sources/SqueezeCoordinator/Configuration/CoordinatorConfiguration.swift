import CoreMetrics
import SqueezeJournal
import SqueezeProtocol

/// Tunables of a coordinator; defaults are the measured choices documented in docs/.
public struct CoordinatorConfiguration: Sendable {
    /// Default block size for jobs that do not set one.
    public var blockSize: Int
    /// Uncompressed bytes one work item of a large file aims for: consecutive blocks go
    /// together up to this, so the coordinator's per-item cost is paid once per several blocks.
    public var itemBytes: Int
    /// Compressed bytes of a file's pieces gathered before a stitch segment goes to the worker
    /// joining it: few messages (each segment is a stitch and a check, both ways), yet the
    /// copy follows compression closely. 64 MiB: a fifth less coordinator CPU per GB than 16
    /// on shared storage, and the job ends no later (measured).
    public var stitchSegmentBytes: Int
    /// Heartbeat period, both ways.
    public var heartbeatInterval: Duration
    /// Silent periods after which a worker is dead.
    public var liveness: Int
    /// Items in flight per worker slot (1 = no prefetch). Credit = slots × this.
    public var creditPerSlot: Int
    /// Uncompressed bytes of items sent in messages (to workers that do not see the files) and
    /// not yet written, across jobs: bounds the read buffers, the results waiting for their
    /// turn and their checks, so a slow disk slows dispatch instead of growing memory. Items
    /// sent by reference (shared storage) do not count. Default: an eighth of the memory this
    /// process may use, 64 MiB to 4 GiB (`RelayBudget`).
    public var relayBudgetBytes: Int
    /// How many files of a job may be planned and not yet finished: the scan pauses there, so
    /// a job's memory does not grow with its tree (about 1 KiB per open file, with its items).
    public var openFilesLimit: Int
    /// Files the scan reads and plans at once: enough that a batch's trip to the actor is cheap
    /// per file, few enough that one is read in milliseconds. The first batch is read before
    /// the job is accepted, so a job of up to this many files starts with its totals known.
    public var scanBatchFiles = 4096

    /// Entries of a kind a scan slice may hold: a worker's scan, and so its batch, and the
    /// coordinator's own listing of a slice or of a range a worker claimed (which must reach as
    /// far as the worker's could). A batch costs the coordinator about seven messages, a journal
    /// commit and a grant whatever its files, so on trees of tiny files, where this binds before
    /// the bytes do, the protocol's most (8,192) took 12 % off its CPU on 200,000 files against
    /// 4,096 (docs/benchmarks.md, "Slices of 8,192 files"). At most `ProtocolLimits.maxBlocksPerItem`.
    public var scanSliceFiles = ProtocolLimits.maxBlocksPerItem

    /// How many items' bytes (`itemBytes`) of one-block files a worker's scan slice, and so
    /// its batch, may hold. None of a batch's bytes pass through the coordinator, and each
    /// batch costs it about eight messages and a journal commit: four items' halved its CPU on
    /// the small tree (docs/benchmarks.md, "Larger batches"). A folder's batches still go to
    /// as many workers as it has slices; the last batch of a job is at most this much work.
    public var scanBatchScale = 4

    /// Files of up to this many bytes a scanning worker that announced `wholeFiles` compresses
    /// whole in its batch, cut into the job's blocks as a stitch would join them: such a file
    /// costs the coordinator nothing of its own, where its items and stitch cost it a dozen
    /// messages or more. 16 MiB is a scan batch's bytes and the largest item the planner makes
    /// (a large file's head), so a whole file is no more of one slot's work than those; the
    /// mixed tree's coordinator sent and received 1,946 messages instead of 6,928 with every
    /// file split (docs/benchmarks.md, "Whole files in batches"). Larger files are split over
    /// workers. At most `ProtocolLimits.maxBlockSize`.
    public var wholeFileBytes = 16 << 20

    /// Threads for disk reads, writes and fsync.
    public var ioThreads: Int
    /// Minimum time between progress snapshots of one job.
    public var progressInterval: Duration
    /// When set, jobs may only name paths under this folder.
    public var root: String?
    /// The least time a worker may hold an item before a copy goes to another worker (it gets
    /// ten times the typical item time when that is longer).
    public var itemDeadline: Duration

    /// CURVE and the allow-list on both endpoints; nil listens without (embedded mode, or
    /// loopback and `--insecure` in `squeeze coordinator`).
    public var security: CoordinatorSecurity?

    /// Checks every answer before its blocks are written: the claimed CRC against the source,
    /// and the compressed bytes by inflating them (docs/architecture.md, "Checking results").
    /// On by default; `squeeze coordinator --no-verify` turns it off, and `squeeze compress`,
    /// whose workers are its own threads, runs without it.
    public var verifyResults = true

    /// Reads the blocks it sends to remote workers with `O_DIRECT` where it can
    /// (`DirectReadSpan`: whole pages of reads of 1 MiB or more), so the bytes go from the
    /// device into the message buffers without a copy through the page cache, which they
    /// would only pollute. On by default; `squeeze coordinator --buffered-reads` turns it off,
    /// for sources that are hot in memory on a device slower than the workers.
    public var directReads = true

    /// How long a verifying worker has to answer a `verify` item before the coordinator checks
    /// the answer itself.
    public var verifyDeadline: Duration = .seconds(10)

    /// Whether a shared-storage worker that announces `publish` renames its accepted whole
    /// members (a bundle's one-block files) into place itself, one `publish` per item, rather
    /// than the coordinator opening, syncing and renaming each (docs/protocol.md, "Publishing").
    public var workersPublish = true

    /// Whether a job's bundles of one-block files are batches (docs/protocol.md, "Batches"):
    /// the job holds each bundle's files inside the item, a shared-storage worker that
    /// announces `batches` gets the bundle as one `batch`, and its answer is checked with one
    /// `verifyBatch` and published with one grant, with no state per file here. Anything
    /// unusual (a remote worker, a failed read, a contested verdict, an audit, a grant taken
    /// over) turns the batch back into an ordinary bundle, handled file by file.
    public var workerBatches = true

    /// Whether a folder's job is scanned in slices (docs/architecture.md, "Scans by workers"):
    /// a slice of one directory is a scan item, which a shared-storage worker that announces
    /// `scans` lists and whose one-block files it compresses as a batch, so the coordinator
    /// neither stats nor plans those files; any other worker's scan items the coordinator
    /// lists itself. Needs `workerBatches`. A resumed job is walked.
    public var workerScans = true

    /// How long a worker has to answer a `publish` before a writer publishes the same
    /// attempt's members itself (taking as done any the worker renamed meanwhile).
    public var publishDeadline: Duration = .seconds(30)

    /// One "good" verdict from a verifying worker in this many, drawn at random, is checked
    /// again (`VerifierAudit`) by a worker of a third principal, or by the coordinator when
    /// there is none. A verifier colluding with the worker it checks on every one of 100
    /// items is caught with probability 1 - (15/16)^100 = 99.8 % at the default (the issue's
    /// 99 % needs at most 22). An audit done here costs a full check of an item (about 11
    /// CPU-s per GB checked, measured), so with only two principals connected the default
    /// costs the coordinator about 0.7 CPU-s per GB of input; with three or more, nothing.
    public var auditInterval = 16

    /// Where jobs and published outputs are recorded, so a restarted coordinator resumes its
    /// running jobs (`squeeze coordinator --state`, or `compress`'s journal in its
    /// destination); nil keeps nothing across restarts.
    public var journal: Journal?

    /// Whether `run` takes up the jobs the journal says were running. `compress` turns it off:
    /// it resumes its one job itself (`Coordinator.resume`), to follow its events.
    public var resumesJournaledJobs = true

    /// Jobs running or being prepared at once, in all and from one client (its CURVE key, or
    /// without one its address): a submit past either is refused with `tooMany`
    /// (`JobAdmission`). Jobs the journal resumes count, but are never refused.
    public var maxJobs = 512
    public var maxJobsPerClient = 256

    /// How many ended jobs the history (`squeeze status`) keeps, in memory and in the journal.
    public var historyJobs = 100

    /// Ended jobs older than this leave the journal's history, whatever `historyJobs` says;
    /// nil keeps them.
    public var historyAge: Duration? = .seconds(30 * 86_400)

    /// A test hook: each block a writer appends waits this long first, like a slow disk, so a
    /// test can show that a slow writer slows dispatch instead of growing memory. Nil in use.
    public var writeDelayForTesting: Duration?
    /// Where the coordinator's metrics go (`CoordinatorMetrics`): a Prometheus factory for
    /// `--http`; nil counts nothing. Given here, not through `MetricsSystem.bootstrap`, so
    /// coordinators in one process (tests, embedded runs) keep separate counts.
    public var metricsFactory: (any MetricsFactory)?

    /// The defaults.
    public init(
        blockSize: Int = 512 * 1024,
        itemBytes: Int = 4 << 20,
        stitchSegmentBytes: Int = 64 << 20,
        heartbeatInterval: Duration = .seconds(1),
        liveness: Int = 3,
        creditPerSlot: Int = 4,
        relayBudgetBytes: Int? = nil,
        openFilesLimit: Int = 50_000,
        ioThreads: Int = 4,
        progressInterval: Duration = .milliseconds(200),
        root: String? = nil,
        itemDeadline: Duration = .seconds(30)
    ) {
        self.blockSize = blockSize
        self.itemBytes = itemBytes
        self.stitchSegmentBytes = stitchSegmentBytes
        self.heartbeatInterval = heartbeatInterval
        self.liveness = liveness
        self.creditPerSlot = creditPerSlot
        self.relayBudgetBytes = max(1, relayBudgetBytes ?? RelayBudget.machineDefault)
        self.openFilesLimit = openFilesLimit
        self.ioThreads = ioThreads
        self.progressInterval = progressInterval
        self.root = root
        self.itemDeadline = itemDeadline
    }
}

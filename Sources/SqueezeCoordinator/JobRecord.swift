import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// The coordinator's state for one job. Plain data; only the actor touches it.
struct JobRecord {
    enum FileState {
        case pending
        case done
        case failed
    }

    let id: UInt64
    let request: JobRequest
    /// The engine and level every item of the job is compressed with.
    let setting: EngineSetting
    let sourceDisplay: String
    let destinationDisplay: String
    let files: [PlannedFile]
    let items: [PlannedItem]
    let started: ContinuousClock.Instant
    let sink: AsyncStream<JobEvent>.Continuation
    let totalBytes: UInt64

    var state = JobState.running
    var message: String?
    /// The blocks the latest dispatch of an item carried: files that failed before it was
    /// read are left out, and its result must match this list, not the plan.
    var sentBlocks: [UInt64: [BlockRef]] = [:]
    /// Blocks of answered items handed to the writers and not yet in their outputs; an item
    /// leaves the dispatch window once its set is empty.
    var unwritten: [UInt64: Set<BlockRef>] = [:]
    /// The job's private folder: temporaries and pieces. Removed when the job ends.
    let workspace: JobWorkspace
    /// Items out by reference: which attempt each worker holding one was given. Only the
    /// attempt the scheduler accepts is read; every other attempt's pieces are left for the
    /// workspace's removal (fencing).
    var attempts: [UInt64: [[UInt8]: UInt64]] = [:]
    /// Pieces of multi-block files, by block index, as they come in: a worker joins them in
    /// segments (or, failing that, a writer joins them) and they are kept until the file is
    /// adopted, for a stitch that must start again.
    var stitchPieces: [Int: [PieceBlock?]] = [:]
    /// Multi-block files a writer joins: some block came from a remote worker, or no worker
    /// could stitch them.
    var joinedByWriter: Set<Int> = []
    /// Files being joined by a worker: which worker, which attempt, since when, how big.
    var stitching: [Int: StitchInProgress] = [:]
    /// Discards sent and not yet answered, per worker. A finished job's workspace waits for
    /// them (for `freeingGrace` at most): removing it first would make the coordinator free
    /// the pieces' space itself.
    var freeing: [[UInt8]: Int] = [:]
    /// Since when the finished job has been waiting for them; nil while it runs.
    var freeingSince: ContinuousClock.Instant?
    /// The workspace was removed (the job's end waits for it).
    var workspaceRemoved = false
    /// The item holding block 0 of each file, and how many blocks each of its items holds:
    /// block i of a file is in item `firstItem + i / itemSpan` (the planner gives a multi-block
    /// file consecutive items of equal span, the last possibly shorter).
    let firstItem: [UInt64]
    let itemSpan: [UInt32]
    var fileStates: [FileState]
    var fileWritten: [UInt64]
    var filesFinished = 0
    var filesCompressed = 0
    var bytesDone: UInt64 = 0
    var bytesIn: UInt64 = 0
    var bytesOut: UInt64 = 0
    /// Uncompressed bytes of accepted blocks that came back in messages (remote workers).
    var bytesRelayed: UInt64 = 0
    var skipped: [EntryNote]
    var failed: [EntryNote] = []
    var lastProgress = ContinuousClock.now
    var dirty = true
    /// The client following the job (its routing id on the client endpoint); nil when the
    /// job runs embedded or detached. Its silence cancels the job.
    var owner: [UInt8]?
    /// How long the owner may stay silent.
    var ownerDeadline = Duration.seconds(3)

    init(
        id: UInt64, request: JobRequest, setting: EngineSetting, sourceDisplay: String, destinationDisplay: String,
        files: [PlannedFile], items: [PlannedItem], skipped: [EntryNote], workspace: JobWorkspace,
        sink: AsyncStream<JobEvent>.Continuation
    ) {
        self.workspace = workspace
        self.id = id
        self.request = request
        self.setting = setting
        self.sourceDisplay = sourceDisplay
        self.destinationDisplay = destinationDisplay
        self.files = files
        self.items = items
        var firstItem = [UInt64](repeating: 0, count: files.count)
        var itemSpan = [UInt32](repeating: 1, count: files.count)
        for item in items {
            for ref in item.blocks where ref.index == 0 {
                firstItem[ref.file] = item.id
                itemSpan[ref.file] = UInt32(item.blocks.count)
            }
        }
        self.firstItem = firstItem
        self.itemSpan = itemSpan
        self.skipped = skipped
        self.sink = sink
        started = .now
        totalBytes = files.reduce(0) { $0 + $1.stamp.size }
        fileStates = Array(repeating: .pending, count: files.count)
        fileWritten = Array(repeating: 0, count: files.count)
    }

    /// The item that holds `ref`.
    func item(holding ref: BlockRef) -> UInt64 {
        firstItem[ref.file] + UInt64(ref.index / Int(itemSpan[ref.file]))
    }

    /// What a worker in `auto` mode must prove it sees: the workspace's probe and the first file.
    func probe() -> StorageProbe {
        let sample = files.first.map { file in
            ProbeSample(path: file.sourcePath.bytes, size: file.stamp.size, modifiedSeconds: file.stamp.modifiedSeconds,
                        modifiedNanoseconds: file.stamp.modifiedNanoseconds, inode: file.stamp.inode)
        }
        return StorageProbe(jobID: id, workspace: workspace.path.bytes, token: workspace.token, sample: sample)
    }

    /// A progress snapshot with up to five files in progress.
    func snapshot(workers: Int, now: ContinuousClock.Instant) -> ProgressSnapshot {
        var active: [FileProgress] = []
        for (index, written) in fileWritten.enumerated() where written > 0 && fileStates[index] == .pending {
            let file = files[index]
            active.append(FileProgress(path: file.relativePath.display, done: written, total: file.stamp.size))
        }
        active.sort { Double($0.done) / Double(max($0.total, 1)) > Double($1.done) / Double(max($1.total, 1)) }
        return ProgressSnapshot(
            jobID: id, filesDone: filesFinished, files: files.count, bytesDone: bytesDone, bytes: totalBytes,
            bytesOut: bytesOut, seconds: (now - started).seconds, workers: workers, active: Array(active.prefix(5)))
    }

    /// The final summary.
    func summary(now: ContinuousClock.Instant) -> JobSummary {
        var summary = JobSummary(
            jobID: id, state: state, message: message, filesCompressed: filesCompressed, bytesIn: bytesIn,
            bytesOut: bytesOut, seconds: (now - started).seconds, skipped: skipped, failed: failed)
        summary.bytesRelayed = bytesRelayed
        summary.filesJoinedByCoordinator = joinedByWriter.count
        return summary
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}

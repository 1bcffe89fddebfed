import Foundation
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol

/// The coordinator's state for one job. Plain data; only the actor touches it.
///
/// Files and items are held only while open: the scan adds them batch by batch, and a file
/// leaves `open` once it is published or failed, an item leaves `items` once it is written. So
/// what a job holds is bounded by how far its scan runs ahead (`CoordinatorConfiguration.openFilesLimit`),
/// not by the size of its tree.
struct JobRecord {
    let id: JobID
    let request: JobRequest
    /// The engine and level every item of the job is compressed with.
    let setting: EngineSetting
    let sourceDisplay: String
    let destinationDisplay: String
    /// The folder files' relative paths start from, and the folder their outputs go to.
    let sourceRoot: BytePath
    let destination: BytePath
    let started: ContinuousClock.Instant
    /// When it was submitted, by the wall clock (for a resumed job: when it was first submitted).
    var submittedAt: Date

    /// The walk still to finish; nil once every file of the source is planned.
    var walker: DirectoryWalker?
    /// A `--tar` job's archive: its one file is the tar stream, read through the layout and
    /// written to the archive's path. A block spans headers and several files, so a worker that
    /// reads it itself is sent its segments (`TarLayout.segments`); any other, its bytes.
    var archive: ArchivePlan?
    /// A batch of the walk is being read off the actor.
    var scanBusy = false
    /// The job is scanned in slices (`ScanSlice`) instead of walked.
    var sliced = false
    /// Slices not yet listed: scan items planned or out, and slices the coordinator lists.
    var scansOutstanding = 0
    /// Listings by workers whose check has not come back (`CoordinatorCore+ListingChecks`):
    /// the job is not scanned until each is, since a difference lists more here.
    var listingChecks = 0
    /// Slices the coordinator lists itself, one at a time while the job's open files are under
    /// the limit, as the walk goes (`CoordinatorCore.continueScan`); among `scansOutstanding`.
    var localSlices: [ScanSlice] = []
    /// The source root's device, stamped on files a worker lists (`PreparedJob.rootDevice`).
    var rootDevice: UInt64 = 0
    /// The last output folder the scan made, so a folder's files do not each `mkdir` it.
    var lastCreatedFolder: OutputFolder?
    /// Cuts the files into items as they come.
    var planner: Planner
    /// Files planned and not yet published or failed, by index.
    var open: [Int: OpenFile] = [:]
    /// Open files some of whose bytes are done: the live view's files in progress.
    var inProgress: Set<Int> = []
    /// Items planned and not yet written, by id.
    var items: [ItemID: PlannedItem] = [:]
    /// Files planned so far (indices `0..<filesPlanned`) and their bytes.
    var filesPlanned = 0
    var totalBytes: UInt64 = 0
    /// The largest item planned so far: the dispatch window is at least the relay budget over it.
    var largestItem = 0
    /// What a worker in `auto` mode must prove it sees: the job's first file.
    var probeSample: ProbeSample?

    /// Where the job stands on its way to its end.
    var phase = JobPhase.running
    /// Whose place in `JobAdmission` it holds until it ends.
    var admittedAs = ""
    /// How its files are found again (`PreparedJob`): for the pass over its outputs.
    var walkExclude: BytePath?
    var singleFile: BytePath?
    /// Identities (`VerificationBook.identity`) of the workers whose word accepted any of its
    /// answers or stitched segments.
    var vouchers: Set<[UInt8]> = []
    /// Collusions caught among its `vouchers`, and how many of them the last pass over its
    /// outputs (`OutputRecheck`) covers: it completes only once the pass covers them all.
    var suspicions = 0
    var suspicionsRechecked = 0
    /// A pass over its outputs is running.
    var rechecking = false
    /// The state `status` and the summary report.
    var state: JobState { phase.state }
    var message: String?
    /// The blocks the latest dispatch of an item carried: files that failed before it was
    /// read are left out, and its result must match this list, not the plan.
    var sentBlocks: [ItemID: [BlockRef]] = [:]
    /// Blocks of answered items handed to the writers and not yet in their outputs; an item
    /// leaves the dispatch window once its set is empty.
    var unwritten: [ItemID: Set<BlockRef>] = [:]
    /// The job's private folder: temporaries and pieces. Removed when the job ends.
    let workspace: JobWorkspace
    /// Items out by reference: which attempt each worker holding one was given. Only the
    /// attempt the scheduler accepts is read; every other attempt's pieces are left for the
    /// workspace's removal (fencing).
    var attempts: [ItemID: [PeerID: AttemptID]] = [:]
    /// Attempts that write their blocks in place (`Placement`); taken out when accepted.
    var placedAttempts: Set<AttemptID> = []
    /// Items whose whole members their worker was granted to publish (`publish`), until it
    /// answers or a writer takes them over: they still hold the dispatch window.
    var grants: [ItemID: GrantInFlight] = [:]
    /// Pieces of multi-block files, by block index, as they come in: a worker joins them in
    /// segments (or, failing that, a writer joins them) and they are kept until the file is
    /// adopted, for a stitch that must start again.
    var stitchPieces: [Int: [PieceBlock?]] = [:]
    /// Files being joined by a worker: which worker, which attempt, since when, how big.
    var stitching: [Int: StitchInProgress] = [:]
    /// Multi-block files a writer joined or joins (for the summary).
    var filesJoinedByWriter = 0
    /// Discards sent and not yet answered, per worker. A finished job's workspace waits for
    /// them (for `JobPhase.discardGrace` at most): removing it first would make the
    /// coordinator free the pieces' space itself.
    var freeing: [PeerID: Int] = [:]
    var filesFinished = 0
    /// Files a resumed job found published before its restart and kept (among `filesFinished`).
    var filesKept = 0
    /// Where a resumed job looks up the outputs it published before the restart; nil otherwise.
    var earlier: EarlierOutputs?
    var filesCompressed = 0
    var bytesDone: UInt64 = 0
    var bytesIn: UInt64 = 0
    var bytesOut: UInt64 = 0
    /// Uncompressed bytes of accepted blocks that came back in messages (remote workers).
    var bytesRelayed: UInt64 = 0
    /// Entries skipped: counted, the first ones kept for the summary.
    var skipped = JobNotes()
    /// Files failed: counted, the first ones kept for the summary.
    var failed = JobNotes()
    var lastProgress: ContinuousClock.Instant
    var dirty = true
    /// The client following the job (its routing id on the client endpoint); nil when the
    /// job runs embedded or detached. Its silence cancels the job.
    var owner: PeerID?
    /// How long the owner may stay silent.
    var ownerDeadline = Duration.seconds(3)
    /// Clients that attached to watch the job (`squeeze attach`): their heartbeats naming it are
    /// echoed, but their silence cancels nothing.
    var watchers: Set<PeerID> = []

    init(
        id: JobID, request: JobRequest, setting: EngineSetting, sourceDisplay: String, destinationDisplay: String,
        sourceRoot: BytePath, destination: BytePath, planner: Planner, workspace: JobWorkspace,
        at now: ContinuousClock.Instant, submittedAt: Date
    ) {
        self.id = id
        self.request = request
        self.setting = setting
        self.sourceDisplay = sourceDisplay
        self.destinationDisplay = destinationDisplay
        self.sourceRoot = sourceRoot
        self.destination = destination
        self.planner = planner
        self.workspace = workspace
        self.submittedAt = submittedAt
        started = now
        lastProgress = now
    }

    /// A job for `request`, prepared as `prepared` (its first batch not yet planned), with
    /// what the request's checks decided.
    init(
        id: JobID, request: JobRequest, setting: EngineSetting, prepared: PreparedJob, planner: Planner,
        earlier: EarlierOutputs?, owner: PeerID?, at now: ContinuousClock.Instant, submittedAt: Date
    ) {
        self.init(
            id: id, request: request, setting: setting, sourceDisplay: prepared.sourceDisplay,
            destinationDisplay: prepared.outputDisplay, sourceRoot: prepared.sourceRoot, destination: prepared.destination,
            planner: planner, workspace: prepared.workspace, at: now, submittedAt: submittedAt)
        walker = prepared.walker
        sliced = prepared.sliced
        rootDevice = prepared.rootDevice
        walkExclude = prepared.walkExclude
        singleFile = prepared.singleFile
        archive = prepared.archive
        self.earlier = earlier
        self.owner = owner
    }

    /// Whether the scan has planned every file of the source.
    var scanComplete: Bool { walker == nil && !scanBusy && scansOutstanding == 0 && listingChecks == 0 }

    /// Whether every file is published or failed and no more will come.
    var allFilesFinished: Bool { scanComplete && open.isEmpty && batchFiles == 0 }

    /// Files planned into batches (queued for one, or in a batch item) and not yet published,
    /// failed or expanded into open files: counted, not held one by one.
    var batchFiles = 0

    /// Files planned and not finished, open or in batches: what the scan's limit counts.
    var unfinishedFiles: Int { open.count + batchFiles }

    /// Open files whose outputs a writer has sealed (see `OpenFile.sealed`).
    private(set) var sealedFiles = 0

    /// Whether every file left is sealed and no more will come: only a flush stands between
    /// the job and its end, so waiting for the tick to batch it with others gains nothing.
    var onlyFlushLeft: Bool { scanComplete && !open.isEmpty && batchFiles == 0 && sealedFiles == open.count }

    /// Notes that a writer sealed the output of open file `index`.
    mutating func sealed(_ index: Int) {
        guard let file = open[index], !file.sealed else { return }
        open[index]?.sealed = true
        sealedFiles += 1
    }

    /// Counts files a resumed job keeps from before its restart as done.
    mutating func keep(_ kept: [KeptFile]) {
        for file in kept {
            filesKept += 1
            filesFinished += 1
            filesCompressed += 1
            bytesIn += file.bytesIn
            bytesOut += file.bytesOut
            bytesDone += file.bytesIn
            totalBytes += file.bytesIn
        }
    }

    /// What the journal records of the job when it ends.
    var journalTotals: JournalTotals {
        JournalTotals(
            filesDone: filesCompressed, filesFailed: failed.count, filesSkipped: skipped.count, bytesIn: bytesIn, bytesOut: bytesOut,
            filesPlanned: filesPlanned + filesKept, bytesPlanned: totalBytes)
    }

    /// Takes newly planned files and the items the planner made of them (and of files queued
    /// before). `batched`: the files are a scan's batch, whatever their blocks; `wholeUpTo`:
    /// what the planner was given (`Planner.add`), so the files it bundled whole have no entry.
    mutating func add(files: [PlannedFile], items newItems: [PlannedItem], batched: Bool = false, wholeUpTo: UInt64 = 0) {
        for file in files {
            if batched || (planner.batches && planner.bundles(file.layout, wholeUpTo: wholeUpTo)) {
                // Held by the planner, then by its batch: no open entry.
                batchFiles += 1
                totalBytes += file.stamp.size
                continue
            }
            var entry = OpenFile(plan: file)
            entry.shape = Planner.shape(blockCount: file.layout.count, blockSize: planner.blockSize, itemBytes: planner.itemBytes)
            open[file.index] = entry
            totalBytes += file.stamp.size
        }
        filesPlanned += files.count
        if probeSample == nil, let archive {
            // A tar job's one file is the stream: a worker must see the files it is made of.
            probeSample = archive.layout.firstFile.map { path, stamp in
                ProbeSample(path: path.bytes, size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
                            modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode)
            }
        } else if probeSample == nil, let first = files.first {
            probeSample = ProbeSample(
                path: sourcePath(of: first).bytes, size: first.stamp.size, modifiedSeconds: first.stamp.modifiedSeconds,
                modifiedNanoseconds: first.stamp.modifiedNanoseconds, inode: first.stamp.inode)
        }
        register(newItems)
    }

    /// Takes a batch's whole files of several blocks back from it as open files of their own,
    /// with the items the planner made of them (`CoordinatorCore.splitWholeFiles`): counted
    /// when the scan found them, so only their entries are new.
    mutating func adopt(files: [PlannedFile], items newItems: [PlannedItem]) {
        for file in files {
            var entry = OpenFile(plan: file)
            entry.shape = Planner.shape(blockCount: file.layout.count, blockSize: planner.blockSize, itemBytes: planner.itemBytes)
            open[file.index] = entry
        }
        batchFiles -= files.count
        register(newItems)
    }

    private mutating func register(_ newItems: [PlannedItem]) {
        for item in newItems {
            items[item.id] = item
            largestItem = max(largestItem, item.bytes)
            for ref in item.blocks where ref.index == 0 { open[ref.file]?.firstItem = item.id }
        }
    }

    /// Turns batch `item` into an ordinary bundle: its files become open files of the item, so
    /// everything that handles bundles file by file handles it from here on. Returns the
    /// bundle's blocks, nil when the item is not a batch.
    mutating func expand(_ item: ItemID) -> [BlockRef]? {
        guard var planned = items[item], let files = planned.files else { return nil }
        let refs = files.map { BlockRef(file: $0.index, index: 0) }
        planned.blocks = refs
        planned.files = nil
        items[item] = planned
        for file in files {
            var entry = OpenFile(plan: file)
            entry.firstItem = item
            open[file.index] = entry
        }
        batchFiles -= files.count
        return refs
    }

    /// Forgets a finished file (published or failed); returns what was held, nil when it was
    /// not open.
    mutating func close(_ index: Int) -> OpenFile? {
        inProgress.remove(index)
        let closed = open.removeValue(forKey: index)
        if closed?.sealed == true { sealedFiles -= 1 }
        return closed
    }

    /// The item that holds `ref`; nil once its file is finished.
    func item(holding ref: BlockRef) -> ItemID? {
        guard let file = open[ref.file] else { return nil }
        return file.firstItem.advanced(by: file.shape.item(of: ref.index))
    }

    /// Where a file is read from.
    func sourcePath(of file: PlannedFile) -> BytePath {
        sourceRoot.appending(file.relativePath)
    }

    /// What the bytes of `range` of a `--tar` job's stream are made of; nil for any other job.
    func segments(of range: Range<UInt64>) -> [SourceSegment]? {
        archive?.layout.segments(range)
    }

    /// What an output's name adds to its source's.
    static let gzSuffix = Array(".gz".utf8)

    /// Where a file's `.gz` goes (the archive, for a `--tar` job).
    func outputPath(of file: PlannedFile) -> BytePath {
        outputPath(of: file.relativePath)
    }

    /// The output of the file at `relativePath` under the source root.
    func outputPath(of relativePath: BytePath) -> BytePath {
        if let archive { return archive.path }
        // Built in one allocation: a batch's grant names every file's output.
        return destination.appending(relativePath, suffix: Self.gzSuffix)
    }

    /// What a worker in `auto` mode must prove it sees: the workspace's probe and the first file.
    func probe() -> StorageProbe {
        StorageProbe(jobID: id.value, workspace: workspace.path.bytes, token: workspace.token, sample: probeSample)
    }

    /// What a client attaching now is told first: the job as `started` would describe it today.
    func startSnapshot() -> JobStart {
        var start = JobStart(
            jobID: id.value, source: sourceDisplay, destination: destinationDisplay, files: filesPlanned + filesKept, bytes: totalBytes,
            engine: setting.description)
        start.scanning = scanComplete ? nil : true
        start.archiveEntries = archive?.layout.entryCount
        return start
    }

    /// A progress snapshot with up to five files in progress.
    func snapshot(workers: Int, now: ContinuousClock.Instant) -> ProgressSnapshot {
        var active: [FileProgress] = []
        for index in inProgress {
            guard let file = open[index] else { continue }
            active.append(FileProgress(path: file.plan.relativePath.display, done: file.written, total: file.plan.stamp.size))
        }
        active.sort { Double($0.done) / Double(max($0.total, 1)) > Double($1.done) / Double(max($1.total, 1)) }
        var snapshot = ProgressSnapshot(
            jobID: id.value, filesDone: filesFinished, files: filesPlanned + filesKept, bytesDone: bytesDone, bytes: totalBytes,
            bytesOut: bytesOut, seconds: (now - started).seconds, workers: workers, active: Array(active.prefix(5)))
        snapshot.scanning = scanComplete ? nil : true
        return snapshot
    }

    /// The job as `squeeze status` lists it.
    func status(now: ContinuousClock.Instant) -> JobStatus {
        // Files refused before planning (an output that exists) count as done and failed, as the
        // journal's history counts them.
        let done = filesCompressed + failed.count
        var status = JobStatus(
            jobID: id.value, source: sourceDisplay, state: state, filesDone: done, files: max(filesPlanned + filesKept, done),
            bytesDone: bytesDone, bytes: totalBytes)
        status.bytesOut = bytesOut
        status.filesFailed = failed.count
        status.submitter = request.submitter ?? "unknown"
        status.submittedAt = submittedAt.timeIntervalSince1970
        status.seconds = (now - started).seconds
        status.message = state == .completed ? nil : message
        return status
    }

    /// The final summary.
    func summary(now: ContinuousClock.Instant) -> JobSummary {
        // The lists are cut to what one message to a client holds (a folder of 60,000 links
        // made a summary the client dropped, and it lost the job); every entry went out in an
        // event as it was found.
        let listedSkipped = skipped.listed
        let listedFailed = failed.listed
        var summary = JobSummary(
            jobID: id.value, state: state, message: message, filesCompressed: filesCompressed, bytesIn: bytesIn,
            bytesOut: bytesOut, seconds: (now - started).seconds, skipped: listedSkipped, failed: listedFailed)
        summary.skippedTotal = listedSkipped.count < skipped.count ? skipped.count : nil
        summary.failedTotal = listedFailed.count < failed.count ? failed.count : nil
        summary.bytesRelayed = bytesRelayed
        summary.filesJoinedByCoordinator = filesJoinedByWriter
        summary.filesKept = filesKept > 0 ? filesKept : nil
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

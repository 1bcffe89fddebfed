import CoreMetrics
import DequeModule
import Foundation
import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol
import SqueezeZMQ
import Synchronization

/// The coordinator: holds the state of jobs and workers and decides who gets what.
///
/// It does bookkeeping only. Scanning, reading, and writing run on the I/O pool; reader and
/// writer tasks do the heavy lifting and report back. Items go to workers only against credit,
/// results are accepted once (the first wins), and dispatch stays within a window of the
/// oldest unfinished item, so memory is bounded by credit and window, not by folder size.
public actor Coordinator {
    /// The configuration.
    public let configuration: CoordinatorConfiguration
    private let context: ZMQContext
    private let pool: BlockingIOPool
    /// Read buffers for items sent to remote workers: sent without a copy, and back here once
    /// libzmq has sent them (and, in embedded mode, the worker has let go of them).
    private let readBuffers: FrameBufferPool
    let logger: Logger

    private var endpoint: ZMQEndpoint?
    var clientEndpoint: ZMQEndpoint?
    private var dispatchSink: AsyncStream<Dispatch>.Continuation?
    private var scanSink: AsyncStream<ScanRequest>.Continuation?
    private var writerSinks: [AsyncStream<WriterCommand>.Continuation] = []
    /// Job ends for the journal, recorded in order off the actor.
    private var journalSink: AsyncStream<JournalCommand>.Continuation?
    /// Writer partitions sent a command since the last tick's flush.
    private var writersToFlush: Set<Int> = []
    /// The registered workers: liveness, throughput, and how each gets at each job's files.
    var workers: WorkerRoster
    var jobs: [UInt64: JobRecord] = [:]
    var jobOrder: [UInt64] = []
    /// Who gets which item: credit, windows, requeues, deadlines and which answers count.
    var scheduler: Scheduler
    private var nextJobID: UInt64 = 1
    private var finished: [JobStatus] = []
    /// Ended jobs in the history, newest first (as `status` lists them).
    var finishedJobs: [JobStatus] { finished }
    /// How recently ended jobs ended, for a client that attaches after the fact (newest first).
    var endedJobs: [(accepted: JobAccepted, summary: JobSummary)] = []
    private var stopping = false
    /// Set by `shutdown()` from any thread (a signal handler's callback, for one).
    private let shutdownFlag = Atomic<Bool>(false)
    /// `shutdown()` yields here; `run`'s stopping task waits on it (kept if it comes first).
    private let shutdownSignals = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    private var shutdownRequested: Bool { shutdownFlag.load(ordering: .relaxed) }
    /// When each client was last heard from; judges the liveness of the jobs it follows.
    var clientsHeard: [[UInt8]: ContinuousClock.Instant] = [:]
    /// Submissions being served to clients; shutdown waits for their final events to leave.
    var openSubmissions = 0
    /// Malformed or unexpected messages received and dropped.
    public private(set) var malformedMessages = 0 {
        didSet { metrics.malformedMessages.increment(by: max(0, malformedMessages - oldValue)) }
    }
    /// Results dropped because their item was already done or their job had ended.
    public internal(set) var lateResults = 0 {
        didSet { metrics.lateResults.increment(by: max(0, lateResults - oldValue)) }
    }
    /// What the coordinator counts for Prometheus.
    let metrics: CoordinatorMetrics
    /// Traces of the jobs that asked for one (`JobRequest.trace`).
    var traces: [UInt64: JobTrace] = [:]
    /// How each worker's clock maps onto this one's, for traces.
    var clocks = ClockOffsets()
    /// Warnings a peer can repeat at will are logged at most once per interval each.
    var warnings = WarningThrottle(interval: Coordinator.warningInterval)
    /// Numbers each by-reference dispatch; pieces carry it in their names (fencing).
    private var nextAttempt: UInt64 = 1
    /// Workspaces of jobs ended by shutdown before a writer could remove them.
    private var leftWorkspaces: [JobWorkspace] = []
    /// The result check's state: sources kept for it, strikes, quarantine.
    var verification = VerificationBook()
    /// Answers waiting for their check (`Coordinator+Verification`).
    var verifySink: AsyncStream<LocalCheck>.Continuation?
    /// Threads that check answers, apart from the I/O pool so a check never delays a publish.
    private let verifyPool = BlockingIOPool(threads: 2, name: "squeeze-verify")

    /// A coordinator using `context` for its sockets.
    public init(configuration: CoordinatorConfiguration = CoordinatorConfiguration(), context: ZMQContext, logger: Logger = Logger(label: "squeeze.coordinator")) {
        self.configuration = configuration
        self.context = context
        self.logger = logger
        metrics = CoordinatorMetrics(factory: configuration.metricsFactory ?? NOOPMetricsHandler.instance)
        pool = BlockingIOPool(threads: configuration.ioThreads, name: "squeeze-io")
        // Up to as many idle bytes as may be in flight, so reads mostly reuse faulted-in pages.
        // Idle read buffers kept for reuse: four of the largest items; a larger relay budget
        // is for bursts, not for memory held while idle.
        readBuffers = FrameBufferPool(keepingBytes: min(configuration.relayBudgetBytes, RelayBudget.floor))
        workers = WorkerRoster(heartbeatInterval: configuration.heartbeatInterval, liveness: configuration.liveness)
        scheduler = Scheduler(deadline: ItemDeadline(floor: configuration.itemDeadline, factor: 10),
                              relayBudget: UInt64(configuration.relayBudgetBytes))
        verification.audit = VerifierAudit(interval: configuration.auditInterval)
        // Read here, off the actor: the first read opens a file in /proc.
        _ = KernelIdentity.bootID
    }

    deinit {
        pool.shutdown()
        verifyPool.shutdown()
    }

    // MARK: - Running

    /// Binds the worker endpoint (and the client endpoint, when `clientEndpoints` is not
    /// empty) and runs readers, writers, the event loops and the ticker until `shutdown` is
    /// called or the task is cancelled. Either way running jobs fail cleanly and their
    /// temporaries are removed; after `shutdown` their clients are told before sockets close.
    public nonisolated func run(
        workerEndpoints: [String],
        clientEndpoints: [String] = [],
        onReady: @Sendable (CoordinatorEndpoints) -> Void = { _ in }
    ) async throws {
        // The ZAP handler binds before the CURVE sockets and stops after they close: libzmq
        // lets every CURVE client in while no handler is bound.
        var zap: ZAPHandler?
        if let security = configuration.security {
            let authorized = security.authorized
            zap = try await ZAPHandler.start(context: context) { authorized.decide($0) }
        }
        let endpoint: ZMQEndpoint
        let clientEndpoint: ZMQEndpoint?
        do {
            let curve = configuration.security?.endpointOptions(domain: "workers")
            endpoint = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
                name: "workers",
                type: .router,
                options: [
                    .routerMandatory(true),
                    .maxMessageSize(ProtocolLimits.maxMessageSize),
                    .sendHighWaterMark(100_000),
                    .receiveHighWaterMark(100_000),
                ] + (curve?.options ?? []),
                bind: workerEndpoints,
                handshakeFailures: curve?.handshakeFailures,
                tickInterval: TickCadence.interval(heartbeat: configuration.heartbeatInterval, progress: configuration.progressInterval)))
            do {
                clientEndpoint = clientEndpoints.isEmpty ? nil
                    : try await ZMQEndpoint.start(context: context, configuration: Self.clientEndpointConfiguration(
                        clientEndpoints, security: configuration.security))
            } catch {
                await endpoint.shutdown()
                throw error
            }
        } catch {
            await zap?.stop()
            throw error
        }
        let (dispatches, dispatchSink) = AsyncStream.makeStream(of: Dispatch.self)
        let (verifications, verifySink) = AsyncStream.makeStream(of: LocalCheck.self)
        // At most one request per running job is out at a time.
        let (scanRequests, scanSink) = AsyncStream.makeStream(of: ScanRequest.self)
        var writerStreams: [AsyncStream<WriterCommand>] = []
        var writerSinks: [AsyncStream<WriterCommand>.Continuation] = []
        for _ in 0..<max(1, configuration.ioThreads) {
            let (stream, sink) = AsyncStream.makeStream(of: WriterCommand.self)
            writerStreams.append(stream)
            writerSinks.append(sink)
        }
        await attach(endpoint: endpoint, clientEndpoint: clientEndpoint, dispatchSink: dispatchSink, scanSink: scanSink, writerSinks: writerSinks)
        await attach(verifySink: verifySink)
        let (journalCommands, journalSink) = AsyncStream.makeStream(of: JournalCommand.self)
        await attach(journalSink: journalSink)
        do {
            try await resumeJournaledJobs()
        } catch {
            await endpoint.shutdown()
            await clientEndpoint?.shutdown()
            await zap?.stop()
            throw error
        }
        onReady(CoordinatorEndpoints(workers: endpoint.boundEndpoints, clients: clientEndpoint?.boundEndpoints ?? []))
        await withTaskGroup(of: Void.self) { group in
            for stream in writerStreams {
                group.addTask { await self.runWriter(stream) }
            }
            for _ in 0..<max(1, configuration.ioThreads) {
                group.addTask { await self.runReader(dispatches, endpoint: endpoint) }
            }
            group.addTask { await self.runEvents(endpoint) }
            for _ in 0..<2 {
                group.addTask { await self.runChecker(verifications, pool: self.verifyPool) }
            }
            group.addTask { await self.runScanner(scanRequests) }
            group.addTask { await self.runJournal(journalCommands) }
            if let clientEndpoint {
                group.addTask { await self.serveClients(clientEndpoint) }
            }
            group.addTask {
                // Ends on `shutdown()` or when `run` is cancelled.
                for await _ in self.shutdownSignals.stream { break }
                await self.stop(reason: "coordinator shutting down")
                // Give each client's final `finished` event a moment to leave before the socket closes.
                let deadline = ContinuousClock.now + .seconds(3)
                while !Task.isCancelled, await self.openSubmissions > 0, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                }
                await endpoint.shutdown()
                await clientEndpoint?.shutdown()
            }
        }
        await zap?.stop()
        let leftovers = await takeLeftWorkspaces()
        _ = try? await pool.run { for workspace in leftovers { workspace.remove() } }
        pool.shutdown()
        verifyPool.shutdown()
    }

    /// Stops taking jobs and ends `run`: running jobs fail, their clients are told and their
    /// temporaries removed. For graceful shutdown (SIGTERM).
    public nonisolated func shutdown() {
        shutdownFlag.store(true, ordering: .relaxed)
        shutdownSignals.continuation.yield()
    }

    private func takeLeftWorkspaces() -> [JobWorkspace] {
        defer { leftWorkspaces.removeAll() }
        return leftWorkspaces
    }

    private func attach(
        endpoint: ZMQEndpoint, clientEndpoint: ZMQEndpoint?,
        dispatchSink: AsyncStream<Dispatch>.Continuation, scanSink: AsyncStream<ScanRequest>.Continuation,
        writerSinks: [AsyncStream<WriterCommand>.Continuation]
    ) {
        self.scanSink = scanSink
        self.endpoint = endpoint
        self.clientEndpoint = clientEndpoint
        self.dispatchSink = dispatchSink
        self.writerSinks = writerSinks
    }

    private func attach(journalSink: AsyncStream<JournalCommand>.Continuation) {
        self.journalSink = journalSink
    }

    /// Records job ends in the journal, in order, on the I/O pool. A failure is logged: the job
    /// has ended either way, and a restart would at worst resume it and find its files kept.
    private nonisolated func runJournal(_ commands: AsyncStream<JournalCommand>) async {
        guard let journal = configuration.journal else {
            for await _ in commands {}
            return
        }
        for await command in commands {
            switch command {
            case .ended(let id, let state, let totals, let message):
                let (keep, age, logger) = (configuration.historyJobs, configuration.historyAge, logger)
                do {
                    try await pool.run {
                        try journal.updateJob(id, state: state, totals: totals, finishedAt: Date(), message: message)
                        Self.prune(journal, keeping: keep, age: age, logger: logger)
                    }
                } catch {
                    logger.error("cannot record a job's end in the journal", metadata: ["job": "\(id)", "error": "\(error)"])
                }
            }
        }
    }

    /// Drops ended jobs beyond the history's length or age from the journal. Blocking. A failure
    /// is logged: an over-long history is no reason to stop.
    private static func prune(_ journal: Journal, keeping: Int, age: Duration?, logger: Logger) {
        do {
            _ = try journal.prune(keepingNewest: keeping, olderThan: age.map { Date(timeIntervalSinceNow: -$0.seconds) })
        } catch {
            logger.warning("cannot prune the journal's history", metadata: ["error": "\(error)"])
        }
    }

    /// Takes up the jobs the journal says were running when the coordinator last stopped:
    /// each is scanned again, keeps the outputs it had published whose source is unchanged,
    /// and runs on detached until a client attaches (unless `resumesJournaledJobs` is off).
    /// Job ids go on from the journal's; the history is pruned and loaded for `status`.
    private func resumeJournaledJobs() async throws {
        guard let journal = configuration.journal else { return }
        let takeUp = configuration.resumesJournaledJobs
        let (keep, age, logger) = (configuration.historyJobs, configuration.historyAge, logger)
        let (next, running, history) = try await pool.run {
            Self.prune(journal, keeping: keep, age: age, logger: logger)
            return (try journal.nextJobID(), takeUp ? try journal.runningJobs() : [], try journal.recentJobs(limit: keep))
        }
        nextJobID = max(nextJobID, next)
        finished = history.filter { $0.state != .running }.map(JobStatus.init(journaled:))
        for record in running {
            do {
                let request = try JSONDecoder().decode(JobRequest.self, from: record.request)
                _ = try await submit(request, owner: nil, client: [], resuming: record)
            } catch {
                let reason = "could not be resumed: \((error as? CoordinatorError)?.message ?? "\(error)")"
                logger.error("job \(reason)", metadata: ["job": "\(record.id)", "source": "\(record.source)"])
                try? await pool.run {
                    try journal.updateJob(record.id, state: .failed, totals: record.totals, finishedAt: Date(), message: reason)
                }
            }
        }
    }

    private func attach(verifySink: AsyncStream<LocalCheck>.Continuation) {
        self.verifySink = verifySink
    }

    private nonisolated func runEvents(_ endpoint: ZMQEndpoint) async {
        for await event in endpoint.events {
            switch event {
            case .message(let message):
                guard message.frames.count >= 2 else {
                    await countMalformed(ProtocolError.empty, from: message.frames.first.map(Array.init) ?? [])
                    continue
                }
                let peer = Array(message.frames[0])
                do {
                    let envelope = try WireCodec.decode(message.frames.dropFirst())
                    if case .workerReady = envelope.message { await identify(peer, userID: message.userID) }
                    await receive(envelope.message, from: peer)
                } catch {
                    await countMalformed(error, from: peer)
                }
            case .sendFailed(let message, let error):
                await sendFailed(to: message.frames.first.map(Array.init) ?? [], error: error)
            case .tick:
                await tick()
            }
        }
    }

    private nonisolated func runReader(_ dispatches: AsyncStream<Dispatch>, endpoint: ZMQEndpoint) async {
        for await dispatch in dispatches {
            let outcome: Result<[WorkBlock], ReadFailures>
            var sources: [BlockRef: SourceBlock] = [:]
            let readStart = dispatch.traced ? MonotonicClock.micros() : 0
            do {
                (outcome, sources) = try await pool.run { [readBuffers, direct = configuration.directReads] in
                    let outcome = Self.read(dispatch, into: readBuffers, direct: direct)
                    guard dispatch.verify, case .success(let blocks) = outcome else { return (outcome, [:]) }
                    return (outcome, Self.sources(of: blocks, refs: dispatch.blocks.map(\.ref)))
                }
            } catch {
                outcome = .failure(ReadFailures(files: dispatch.blocks.map { ($0.ref.file, "\(error)") }))
            }
            if dispatch.traced { await traceRead(dispatch, from: readStart, to: MonotonicClock.micros()) }
            switch outcome {
            case .success(let blocks):
                if dispatch.verify { await recordSources(ItemKey(job: dispatch.job, item: dispatch.item), sources) }
                let work = WorkAssignment(jobID: dispatch.job, itemID: dispatch.item, setting: dispatch.setting, blocks: blocks)
                endpoint.send(ZMQMessage([ZMQFrame(dispatch.routingID)] + WireCodec.encode(.work(work))))
            case .failure(let failures):
                await readFailed(dispatch, failures: failures)
            }
            for check in dispatch.checks {
                endpoint.send(ZMQMessage([ZMQFrame(dispatch.routingID)] + WireCodec.encode(.verify(check))))
            }
        }
    }

    /// Reads every block of a dispatch into one pooled buffer, one read per run of
    /// consecutive blocks of a file (`O_DIRECT` where `direct` and `DirectReadSpan` allow);
    /// each block's frame is a range of it. Blocking, on a pool thread.
    private static func read(_ dispatch: Dispatch, into buffers: FrameBufferPool, direct: Bool) -> Result<[WorkBlock], ReadFailures> {
        let plan = ReadPlan(dispatch.blocks)
        var failures = ReadFailures(files: [])
        let bytes = buffers.fill(count: plan.byteCount) { buffer in
            for run in plan.runs {
                let block = dispatch.blocks[run.block]
                do {
                    let slot = UnsafeMutableRawBufferPointer(rebasing: buffer[run.slot])
                    if let archive = block.archive {
                        try archive.read(run.range, into: slot)
                    } else {
                        try SourceReader.read(block.path, expected: block.stamp, range: run.range, into: slot, direct: direct)
                    }
                } catch {
                    failures.files.append((block.ref.file, (error as? FileSystemError)?.reason ?? "\(error)"))
                }
            }
            return buffer.count
        }
        guard failures.files.isEmpty else { return .failure(failures) }
        return .success(zip(dispatch.blocks, plan.frames).map { block, frame in
            WorkBlock(
                file: UInt32(block.ref.file), index: UInt32(block.ref.index), dictionaryLength: block.dictionaryLength,
                isLast: block.isLast, bytes: ZMQFrame(bytes, range: frame))
        })
    }

    /// What the result check needs of the blocks read for a remote worker: the CRC of each
    /// block's data and a copy of its dictionary (at most 32 KiB; the read buffer itself goes
    /// back to the pool once sent). Blocking, on a pool thread.
    private static func sources(of blocks: [WorkBlock], refs: [BlockRef]) -> [BlockRef: SourceBlock] {
        var sources: [BlockRef: SourceBlock] = [:]
        for (ref, block) in zip(refs, blocks) {
            sources[ref] = block.bytes.withUnsafeBytes { bytes in
                let split = min(block.dictionaryLength, bytes.count)
                return SourceBlock(
                    crc: CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[split...])),
                    dictionary: Array(bytes[..<split]))
            }
        }
        return sources
    }

    private nonisolated func runWriter(_ commands: AsyncStream<WriterCommand>) async {
        var writer = OutputWriter(pool: pool, journal: configuration.journal, delayPerBlock: configuration.writeDelayForTesting, metrics: metrics)
        for await command in commands {
            // One trip to the actor per command, however many files it finished.
            let outcomes = await writer.handle(command)
            if !outcomes.isEmpty { await writerReported(outcomes) }
            if case .discardJob(let job) = command { await discarded(job) }
            if case .removeWorkspace(let job, _) = command { await workspaceRemoved(job) }
        }
        await writer.discardAll()
    }

    // MARK: - Jobs

    /// Validates and scans `request`, then starts it. The stream carries the job's events and
    /// ends after `.finished`.
    public func submit(_ request: JobRequest) async throws -> (JobAccepted, AsyncStream<JobEvent>) {
        try await submit(request, owner: nil, client: [])
    }

    /// Takes up the journal's job `record` again, as `request` asks now, and returns its events
    /// like `submit`: outputs the journal lists as published whose source is unchanged are kept,
    /// the rest compressed. For `compress --resume`, whose coordinator leaves the journal's jobs
    /// alone (`resumesJournaledJobs` off); the job keeps its id and is running again in the journal.
    public func resume(_ request: JobRequest, from record: JournalJob) async throws -> (JobAccepted, AsyncStream<JobEvent>) {
        guard let journal = configuration.journal else { throw CoordinatorError("no journal to resume a job from") }
        if record.state != .running {
            try await pool.run { try journal.updateJob(record.id, state: .running, totals: record.totals, finishedAt: nil, message: nil) }
        }
        return try await submit(request, owner: nil, client: [], resuming: record, followed: true)
    }

    /// `submit` for a job whose client (`owner`) must stay alive while it runs. `client` is the
    /// submitter's routing id, whatever it follows: jobs take turns by client first. A job
    /// `resuming` a journal's keeps no events unless `followed`: no submitter reads them.
    func submit(
        _ request: JobRequest, owner: [UInt8]?, client: [UInt8], resuming: JournalJob? = nil, followed: Bool = false
    ) async throws -> (JobAccepted, AsyncStream<JobEvent>) {
        guard !stopping && !shutdownRequested else { throw CoordinatorError("coordinator is shutting down") }
        try Self.checkFields(of: request)
        let blockSize = request.blockSize ?? configuration.blockSize
        guard (4096...ProtocolLimits.maxBlockSize).contains(blockSize) else {
            throw CoordinatorError("blockSize \(blockSize): must be between 4 KiB and \(ProtocolLimits.maxBlockSize >> 20) MiB")
        }
        let setting = try Self.setting(for: request)
        if !workers.isEmpty, !scheduler.canRun(setting.engine) {
            throw CoordinatorError("no worker can compress with \(setting.engine.rawValue): the workers have \(workers.engineSummary)")
        }
        let root = configuration.root
        let journal = configuration.journal
        let prepared: PreparedJob
        var earlier: EarlierOutputs?
        var publishedBefore = 0
        do {
            (prepared, earlier, publishedBefore) = try await pool.run {
                var earlier: EarlierOutputs?, count = 0
                if let resuming, let journal {
                    count = try journal.publishedCount(of: resuming.id)
                    // Nothing to look up for a job that had published nothing.
                    if count > 0 { earlier = EarlierOutputs(journal: journal, job: resuming.id) }
                }
                return (try JobPreparer.prepare(request, blockSize: blockSize, root: root, earlier: earlier), earlier, count)
            }
        } catch _ where shutdownRequested {
            throw CoordinatorError("coordinator is shutting down")
        } catch let error as CoordinatorError {
            throw error
        } catch {
            throw CoordinatorError("\(request.source): \(error)")
        }
        // The scan ran off the actor; the coordinator may have begun shutting down meanwhile.
        guard !stopping && !shutdownRequested else {
            prepared.workspace.remove()
            throw CoordinatorError("coordinator is shutting down")
        }
        let id = resuming?.id ?? nextJobID
        // The id may come from the journal file: no overflow trap on the largest one.
        nextJobID = max(nextJobID, id == .max ? id : id + 1)
        if let journal, resuming == nil {
            let record = JournalJob(
                id: id, request: (try? JSONEncoder().encode(request)) ?? Data(), source: prepared.sourceDisplay,
                destination: prepared.outputDisplay, state: .running, submittedBy: request.submitter ?? "unknown", createdAt: Date())
            do {
                try await pool.run { try journal.insertJob(record) }
            } catch {
                prepared.workspace.remove()
                throw CoordinatorError("\(error)")
            }
        }
        // A job resumed at start-up has no submitter to read its stream (clients attach with
        // their own): it keeps nothing, instead of every event of the job.
        let unread = resuming != nil && !followed
        let (events, sink) = AsyncStream.makeStream(of: JobEvent.self, bufferingPolicy: unread ? .bufferingNewest(0) : .unbounded)
        var job = JobRecord(
            id: id, request: request, setting: setting, sourceDisplay: prepared.sourceDisplay,
            destinationDisplay: prepared.outputDisplay, sourceRoot: prepared.sourceRoot, destination: prepared.destination,
            planner: Planner(blockSize: blockSize, itemBytes: configuration.itemBytes), workspace: prepared.workspace, sink: sink)
        job.walker = prepared.walker
        job.archive = prepared.archive
        job.earlier = earlier
        if let resuming { job.submittedAt = resuming.createdAt }
        if let owner {
            job.owner = owner
            let interval = request.heartbeatMilliseconds.map { Duration.milliseconds($0) } ?? configuration.heartbeatInterval
            job.ownerDeadline = interval * configuration.liveness
            clientsHeard[owner] = .now
        }
        jobs[id] = job
        jobOrder.append(id)
        if request.trace == true { startTrace(of: id) }
        if !configuration.verifyResults || request.verify == false { verification.uncheckedJobs.insert(id) }
        scheduler.addJob(id, items: 0, window: 1, engine: setting.engine, client: client)
        let first = prepared.firstBatch
        var start = JobStart(
            jobID: id, source: job.sourceDisplay, destination: job.destinationDisplay,
            files: first.files.count + first.kept.count,
            bytes: first.files.reduce(0) { $0 + $1.stamp.size } + first.kept.reduce(0) { $0 + $1.bytesIn }, engine: setting.description)
        start.scanning = first.finished ? nil : true
        start.archiveEntries = prepared.archive?.layout.entryCount
        sink.yield(.started(start))
        if resuming != nil {
            logger.info("job resumed", metadata: ["job": "\(id)", "source": "\(request.source)", "published before": "\(publishedBefore)"])
        } else {
            logger.info("job started", metadata: ["job": "\(id)", "source": "\(request.source)"])
        }
        scanned(id, batch: first)
        return (JobAccepted(jobID: id, destination: prepared.outputDisplay), events)
    }

    /// Plans a batch of a job's scan: its files join the job, the planner's items the
    /// scheduler, and the scan goes on while the job's open files are under the limit.
    private func scanned(_ id: UInt64, batch: PreparedBatch) {
        guard var job = jobs.removeValue(forKey: id) else { return }
        job.scanBusy = false
        guard job.state == .running else {
            job.walker = nil
            jobs[id] = job
            return
        }
        for note in batch.skipped { job.sink.yield(.skipped(note)) }
        for note in batch.failed { job.sink.yield(.fileFailed(note)) }
        metrics.filesSkipped.increment(by: batch.skipped.count)
        metrics.filesFailed.increment(by: batch.failed.count)
        job.skipped += batch.skipped
        job.failed += batch.failed
        job.keep(batch.kept)
        var items = job.planner.add(batch.files)
        if batch.finished {
            job.walker = nil
            items += job.planner.flush()
        }
        job.lastCreatedFolder = batch.lastCreatedFolder
        job.add(files: batch.files, items: items)
        traces[id]?.queued(items.lazy.map(\.id), at: MonotonicClock.micros())
        job.dirty = true
        let window = self.window(for: job)
        jobs[id] = job
        scheduler.addItems(id, count: items.count, window: window, bytes: items.map { UInt64(max(0, $0.bytes)) })
        for peer in workers.peers { assignStorage(worker: peer, job: id) }
        checkFinished(id)
        pump()
        continueScan(id)
        flushIfOnlyFlushLeft(id)
    }

    /// Dispatch may run this many items ahead of the oldest unwritten one (`DispatchWindow`):
    /// every worker stays busy; what waits in memory is the relay budget's concern.
    private func window(for job: JobRecord) -> Int {
        DispatchWindow().items(largestItem: job.largestItem, credit: workers.slots * creditPerSlot)
    }

    /// Items each worker slot may hold, as the scheduler counts them.
    private var creditPerSlot: Int { min(max(1, configuration.creditPerSlot), 64) }

    /// Items each slot may hold when they travel in messages: one compressing and one queued
    /// hides the round trip (a 16 MiB item keeps a level-6 slot busy for about 0.4 s here);
    /// each more is 16 MiB held on its way. Measured on mixed.cat with two remote one-slot
    /// workers (medians of 4 interleaved runs): four per slot peaked at 200 MiB and cost 1.36
    /// coordinator CPU-s per GB; two, 131 MiB and 1.08, and no slower.
    private static let relayCreditPerSlot = 2

    /// Sets job `id`'s window again: a worker came or left, so the cluster's credit changed.
    private func refreshWindow(_ id: UInt64) {
        guard let job = jobs[id], job.state == .running else { return }
        scheduler.setWindow(id, window(for: job))
    }

    /// Asks the scanner for job `id`'s next batch unless one is being read, the walk is over,
    /// or the job holds as many open files as it may.
    private func continueScan(_ id: UInt64) {
        // Checked field by field: this runs for every finished file, and a copy of the job is dear.
        guard let scanSink, jobs[id]?.state == .running, jobs[id]?.scanBusy == false, let walker = jobs[id]?.walker,
              let open = jobs[id]?.open.count, open < configuration.openFilesLimit, let job = jobs[id] else { return }
        jobs[id]?.scanBusy = true
        scanSink.yield(ScanRequest(
            job: id, walker: walker,
            context: JobPreparer.BatchContext(
                sourceRoot: job.sourceRoot, destination: job.destination, force: job.request.force,
                blockSize: job.planner.blockSize, earlier: job.earlier),
            firstIndex: job.filesPlanned, lastCreatedFolder: job.lastCreatedFolder))
    }

    /// Bundles the small files a job's planner holds when the job has nothing left to send:
    /// workers must not wait for a bundle to fill.
    /// Returns whether any did.
    private func flushIdlePlanners() -> Bool {
        var flushed = false
        for id in jobOrder where scheduler.unsent(of: id) == 0 {
            guard jobs[id]?.state == .running, jobs[id]?.planner.hasQueued == true,
                  var job = jobs.removeValue(forKey: id) else { continue }
            let items = job.planner.flush()
            job.add(files: [], items: items)
            let window = self.window(for: job)
            jobs[id] = job
            scheduler.addItems(id, count: items.count, window: window, bytes: items.map { UInt64(max(0, $0.bytes)) })
            flushed = flushed || !items.isEmpty
        }
        return flushed
    }

    /// Reads scan batches off the actor, one job's request at a time.
    private nonisolated func runScanner(_ requests: AsyncStream<ScanRequest>) async {
        for await request in requests {
            let batch: PreparedBatch
            do {
                batch = try await pool.run {
                    JobPreparer.nextBatch(of: request.walker, context: request.context, firstIndex: request.firstIndex, lastCreated: request.lastCreatedFolder)
                }
            } catch {
                // The pool is shutting down; so is the coordinator.
                continue
            }
            await scanned(request.job, batch: batch)
        }
    }

    /// The range a following client may promise for its heartbeats.
    static let clientHeartbeatRange = ProtocolLimits.heartbeatMilliseconds

    /// Refuses request fields out of range before anything uses them, naming the field.
    static func checkFields(of request: JobRequest) throws {
        if let milliseconds = request.heartbeatMilliseconds, !clientHeartbeatRange.contains(milliseconds) {
            throw CoordinatorError("heartbeatMilliseconds \(milliseconds): must be \(clientHeartbeatRange.lowerBound)-\(clientHeartbeatRange.upperBound)")
        }
        for (name, path) in [("source", request.source), ("destination", request.destination ?? "")] {
            if path.utf8.contains(0) { throw CoordinatorError("\(name) contains a NUL byte") }
        }
        if request.source.isEmpty { throw CoordinatorError("source is empty") }
        if let submitter = request.submitter, submitter.utf8.count > 256 {
            throw CoordinatorError("submitter: \(submitter.utf8.count) bytes, at most 256")
        }
    }

    /// The engine setting a request asks for: its forced engine, or the level table's choice.
    static func setting(for request: JobRequest) throws -> EngineSetting {
        var engine: CompressionEngine?
        if let name = request.engine {
            guard let named = CompressionEngine(rawValue: name) else {
                let known = CompressionEngine.allCases.map(\.rawValue).joined(separator: ", ")
                throw CoordinatorError("unknown engine \(name.debugDescription): choose one of \(known)")
            }
            engine = named
        }
        do {
            return try LevelTable.setting(forLevel: request.level, engine: engine)
        } catch {
            throw CoordinatorError("level \(request.level): must be 0-9")
        }
    }

    /// Cancels a running job: its items are dropped everywhere and its temporaries removed. It
    /// ends as `state`: cancelled, or failed when it cannot go on (its journal failed).
    public func cancel(job id: UInt64, reason: String = "cancelled", as state: JobState = .cancelled) {
        guard jobs[id]?.phase.isRunning == true else { return }
        jobs[id]?.message = reason
        perform(jobs[id]?.phase.cancel(as: state, writers: writerSinks.count) ?? [], job: id)
        pump()
    }

    /// Carries out what a change of job `id`'s phase asks for.
    private func perform(_ actions: [JobPhaseAction], job id: UInt64) {
        for action in actions {
            switch action {
            case .dropInFlight: dropInFlight(of: id)
            case .discardInWriters: for sink in writerSinks { sink.yield(.discardJob(id)) }
            case .removeWorkspace: removeWorkspace(of: id)
            case .finish: finish(id)
            }
        }
    }

    /// A writer partition has removed the temporaries of job `id`.
    private func discarded(_ id: UInt64) {
        perform(jobs[id]?.phase.writerDiscarded() ?? [], job: id)
    }

    /// Has a writer remove job `id`'s workspace, after the commands before it.
    private func removeWorkspace(of id: UInt64) {
        guard let job = jobs[id] else { return }
        guard let sink = writerSinks.first else {
            // No writers run (the coordinator is not running): nothing else uses the folder.
            job.workspace.remove()
            workspaceRemoved(id)
            return
        }
        sink.yield(.removeWorkspace(id, job.workspace))
    }

    private func workspaceRemoved(_ id: UInt64) {
        perform(jobs[id]?.phase.workspaceRemoved() ?? [], job: id)
    }

    /// Ends job `id`'s dispatch and tells the workers holding its items to drop them.
    private func dropInFlight(of id: UInt64) {
        for worker in scheduler.removeJob(id) { send(.cancelJob(id), to: worker) }
    }

    /// Cancels every running job (Ctrl-C on `compress`).
    public func cancelAll(reason: String) {
        for id in jobOrder { cancel(job: id, reason: reason) }
    }

    /// Workers and jobs, for `status`.
    public func status() -> ClusterStatus {
        let now = ContinuousClock.now
        let workerList = workers.all.map { worker in
            WorkerStatus(
                workerID: worker.hello.workerID, host: worker.hello.host, slots: worker.hello.slots,
                busy: scheduler.busy(worker.routingID), megabytesPerSecond: worker.megabytesPerSecond(now: now),
                lastHeartbeatSeconds: (now - worker.lastHeard).seconds, itemsDone: worker.itemsDone,
                engines: worker.engines.map(\.rawValue).sorted(), storage: worker.storage.rawValue,
                quarantined: verification.quarantine.isQuarantined(verification.identity(of: worker.routingID)) ? true : nil,
                refusedResults: verification.quarantine.strikes(of: verification.identity(of: worker.routingID)))
        }.sorted { $0.workerID < $1.workerID }
        let running = jobOrder.compactMap { jobs[$0] }.map { job in
            var status = job.status(now: now)
            let snapshot = job.snapshot(workers: workers.count, now: now)
            status.active = snapshot.active
            status.scanning = snapshot.scanning
            return status
        }
        var status = ClusterStatus(workers: workerList, jobs: running + finished, lateResults: lateResults, malformedMessages: malformedMessages,
            coordinatorCPUSeconds: ProcessCPU.seconds())
        status.refusedResults = verification.refusedResults
        status.resultsChecked = configuration.verifyResults
        status.checksByWorkers = verification.checkedByWorkers
        status.checksByCoordinator = verification.checkedLocally
        status.stitchChecksByWorkers = verification.segmentsCheckedByWorkers
        status.stitchChecksByCoordinator = verification.segmentsCheckedLocally
        status.refusedStitches = verification.refusedStitches
        if let authorized = configuration.security?.authorized {
            status.authorizedKeys = authorized.count
            status.refusedConnections = authorized.refusedCount
        }
        return status
    }

    /// Number of connected workers.
    public var workerCount: Int { workers.count }

    private func finish(_ id: UInt64) {
        guard let job = jobs.removeValue(forKey: id) else { return }
        // The counters' last sample, as the job ends: a job shorter than a progress interval
        // would otherwise have none.
        sampleTrace(of: job)
        jobOrder.removeAll { $0 == id }
        dropInFlight(of: id)
        verification.forget(job: id)
        if case .ended(_, workspaceRemoved: false) = job.phase { leftWorkspaces.append(job.workspace) }
        workers.forget(job: id)
        let now = ContinuousClock.now
        let final = job
        let summary = final.summary(now: now)
        metrics.jobsEnded[final.state]?.increment()
        if let chunk = endTrace(of: id) { final.sink.yield(.trace(chunk)) }
        final.sink.yield(.progress(final.snapshot(workers: workers.count, now: now)))
        final.sink.yield(.finished(summary))
        final.sink.finish()
        journalSink?.yield(.ended(id, state: JournalJobState(final.state), totals: final.journalTotals, message: final.message))
        endedJobs.insert((JobAccepted(jobID: id, destination: job.destinationDisplay), summary), at: 0)
        if endedJobs.count > 20 { endedJobs.removeLast() }
        finished.insert(final.status(now: now), at: 0)
        if finished.count > configuration.historyJobs { finished.removeLast(finished.count - configuration.historyJobs) }
        logger.info("job ended", metadata: ["job": "\(id)", "state": "\(final.state)", "failed": "\(job.failed.count)"])
        updateGauges()
    }

    private func checkFinished(_ id: UInt64, now: ContinuousClock.Instant = .now) {
        guard let job = jobs[id], job.phase.isRunning, job.allFilesFinished else { return }
        // Every output is published or failed; late answers are dropped from here on.
        perform(jobs[id]?.phase.complete(at: now, outstanding: !job.freeing.isEmpty) ?? [], job: id)
    }

    /// Removes a completed job's workspace once no discard is outstanding (or their grace is
    /// over): workers unlink the stitched files' pieces, so the coordinator finds little left.
    private func removeWorkspaceOnceFreed(_ id: UInt64, now: ContinuousClock.Instant = .now) {
        guard let job = jobs[id], case .completing = job.phase else { return }
        perform(jobs[id]?.phase.discardsAnswered(outstanding: !job.freeing.isEmpty, at: now) ?? [], job: id)
    }

    /// A worker answered a discard (or is gone: `all` forgets every discard it was sent).
    private func freed(job id: UInt64, by peer: [UInt8], all: Bool = false) {
        guard let outstanding = jobs[id]?.freeing[peer] else { return }
        if all || outstanding <= 1 {
            jobs[id]?.freeing.removeValue(forKey: peer)
        } else {
            jobs[id]?.freeing[peer] = outstanding - 1
        }
        removeWorkspaceOnceFreed(id)
    }

    private func stop(reason: String) {
        stopping = true
        shutdownFlag.store(true, ordering: .relaxed)  // also ends a scan in progress
        for id in jobOrder {
            // A cancelled job still waiting for its writers ends now, as cancelled; the
            // writers drain their commands (its discard among them) before `run` returns.
            if jobs[id]?.phase.isRunning == true { jobs[id]?.message = reason }
            perform(jobs[id]?.phase.stop() ?? [], job: id)
        }
        dispatchSink?.finish()
        scanSink?.finish()
        verifySink?.finish()
        journalSink?.finish()
        for sink in writerSinks { sink.finish() }
    }

    // MARK: - Workers

    private func receive(_ message: WireMessage, from peer: [UInt8]) {
        let now = ContinuousClock.now
        switch message {
        case .workerReady(let hello):
            if workers[peer] != nil { requeue(worker: peer, now: now) }
            // Checked before any arithmetic (slots times credit per slot must not overflow) and
            // before its names reach a log line.
            if let defect = hello.defect {
                countMalformed(ProtocolError.malformed(defect), from: peer)
                workers.remove(peer)
                send(.error(ErrorReply(message: "workerReady refused: \(defect)")), to: peer)
                return
            }
            guard admitWorkerID(hello, from: peer) else { return }
            let record = workers.register(peer, hello: hello, at: now)
            scheduler.addWorker(peer, credit: hello.slots * creditPerSlot, relayCredit: hello.slots * Self.relayCreditPerSlot,
                                engines: record.engines)
            // Reconnecting does not lift a quarantine, nor does a new worker id with the same CURVE key.
            if verification.quarantine.isQuarantined(verification.identity(of: peer)) { scheduler.quarantine(peer) }
            let milliseconds = Int(configuration.heartbeatInterval.seconds * 1000)
            var welcome = Welcome(heartbeatMilliseconds: milliseconds, liveness: configuration.liveness)
            welcome.timings = !traces.isEmpty
            clocks.forget(peer)
            send(.welcome(welcome), to: peer)
            logger.info("worker joined", metadata: [
                "worker": "\(hello.workerID)", "host": "\(hello.host)", "slots": "\(hello.slots)", "storage": "\(record.storage.rawValue)",
            ])
            for id in jobOrder { assignStorage(worker: peer, job: id) }
            pump()
            updateGauges()
        case .heartbeat:
            if !workers.heard(peer, at: now) { send(.unknownPeer, to: peer) }
        case .result(let result):
            workers.heard(peer, at: now)
            if accept(result, from: peer) { workers.credit(peer, bytes: result.blocks.reduce(0) { $0 + $1.rawLength }, at: now) }
            pump()
            sendChecksLeft(for: peer)
        case .resultRef(let result):
            workers.heard(peer, at: now)
            if accept(result, from: peer) { workers.credit(peer, bytes: result.pieces.reduce(0) { $0 + $1.rawLength }, at: now) }
            pump()
            sendChecksLeft(for: peer)
        case .stitched(let result):
            workers.heard(peer, at: now)
            stitched(result, from: peer)
        case .verified(let report):
            workers.heard(peer, at: now)
            verified(report, from: peer)
        case .probeReply(let reply):
            guard workers.heard(peer, at: now), let worker = workers[peer] else { return }
            if workers.probeAnswered(by: peer, job: reply.jobID, shared: reply.shared) {
                scheduler.setReadsItself(reply.jobID, on: peer, reply.shared)
                scheduler.resume(reply.jobID, on: peer)
                logger.info(reply.shared ? "worker sees the job's files: shared storage" : "worker does not see the job's files: remote", metadata: [
                    "worker": "\(worker.hello.workerID)", "job": "\(reply.jobID)",
                    "reason": "\(String((reply.reason ?? "-").prefix(200)).debugDescription)",
                ])
            }
            pump()
        case .itemFailed(let failure):
            let key = ItemKey(job: failure.jobID, item: failure.itemID)
            workers.heard(peer, at: now)
            // Only the worker holding the item can fail it, and then it is tried elsewhere.
            switch scheduler.verdict(key, from: peer) {
            case .accepted:
                traces[key.job]?.answered(key.item, by: peer, at: MonotonicClock.micros(), won: false, outcome: "failed")
                itemWentWrong(key, on: peer, reason: "compression failed: \(String(failure.reason.prefix(200)))")
            case .late, .notAssigned:
                let verdict = scheduler.fail(key, from: peer)  // frees a slower copy's credit
                countLate(verdict, of: "itemFailed", key: key, from: peer)
            case .unknownItem:
                countMalformed(ProtocolError.malformed("itemFailed for unknown item \(failure.itemID)"), from: peer)
            }
            pump()
            sendChecksLeft(for: peer)
        case .discarded(let job):
            freed(job: job, by: peer)
        case .timing(let timing):
            guard let worker = workers[peer] else { return }
            workers.heard(peer, at: now)
            if let defect = timing.defect(slots: worker.hello.slots) {
                countMalformed(ProtocolError.malformed("timing: \(defect)"), from: peer)
                return
            }
            let received = MonotonicClock.micros()
            clocks.sample(peer, sent: timing.endedAt, received: received)
            if traces[timing.jobID] != nil, let offset = clocks.offset(of: peer) {
                traces[timing.jobID]?.timing(timing, from: peer, offset: offset, receivedAt: received)
            }
        case .clock(let micros):
            guard workers.heard(peer, at: now) else { return }
            clocks.sample(peer, sent: micros, received: MonotonicClock.micros())
        case .goodbye:
            if let worker = workers[peer] {
                logger.info("worker left", metadata: ["worker": "\(worker.hello.workerID)"])
                workerGone(peer, now: now)
            }
        default:
            countMalformed(ProtocolError.malformed("unexpected \(message.type) on the worker endpoint"), from: peer)
        }
    }

    /// Takes a result if it is the first one for its item, from the worker the item was sent
    /// to, and matches what was sent; hands its blocks to the writers. Returns whether it did.
    private func accept(_ result: WorkResult, from peer: [UInt8]) -> Bool {
        let key = ItemKey(job: result.jobID, item: result.itemID)
        guard let expected = admit(key, from: peer, rawLengths: result.blocks.map(\.rawLength)) else { return false }
        if checksResults(of: key.job) {
            check(result, item: key, from: peer, expected: expected)
        } else {
            hand(key, expected: expected, blocks: result.blocks.map(PendingBlock.bytes))
        }
        return true
    }

    /// Takes a shared-storage worker's answer the same way; only the attempt this worker was
    /// given counts, so pieces of any other attempt (a worker declared dead, a slower copy)
    /// are never stitched. Blocks it could not read fail their files.
    private func accept(_ result: RefResult, from peer: [UInt8]) -> Bool {
        let key = ItemKey(job: result.jobID, item: result.itemID)
        if let given = jobs[key.job]?.attempts[key.item]?[peer], given != result.attempt {
            countMalformed(ProtocolError.malformed("resultRef for attempt \(result.attempt), the worker was given \(given)"), from: peer)
            itemWentWrong(key, on: peer, reason: "its worker answered for another attempt")
            return false
        }
        // A block written in place must end where the next one starts.
        if jobs[key.job]?.placedAttempts.contains(result.attempt) == true, let mismatch = placedLengthMismatch(result, item: key) {
            countMalformed(ProtocolError.malformed(mismatch), from: peer)
            itemWentWrong(key, on: peer, reason: mismatch)
            return false
        }
        // Only the path is kept: a copy of the job held across `hand` would make its in-place
        // updates copy the per-file tables.
        guard let expected = admit(key, from: peer, rawLengths: result.pieces.map { $0.failure == nil ? $0.rawLength : nil }),
              let workspace = jobs[key.job]?.workspace.path else { return false }
        jobs[key.job]?.attempts.removeValue(forKey: key.item)
        let placed = jobs[key.job]?.placedAttempts.remove(result.attempt) != nil
        var blocks: [PendingBlock?] = []
        var failures: [(Int, String)] = []
        for (position, (ref, piece)) in zip(expected, result.pieces).enumerated() {
            if let failure = piece.failure {
                failures.append((ref.file, failure))
                blocks.append(nil)
                continue
            }
            var block = PieceBlock(
                path: JobWorkspace.piecePath(in: workspace, item: key.item, attempt: result.attempt, position: position),
                crc: piece.crc, rawLength: piece.rawLength, length: piece.pieceLength,
                item: key.item, attempt: result.attempt, position: position)
            if placed, let open = jobs[key.job]?.open[ref.file], let placement = open.placement {
                block.path = JobWorkspace.stitchPath(in: workspace, file: ref.file, attempt: placement.output)
                block.offset = placement.offset(of: ref.index, in: open.plan.layout)
                block.placed = true
            }
            blocks.append(.piece(block))
        }
        // A worker's word that it cannot read a source is not taken alone either: the item goes
        // once more, to another worker where there is one, and only a second report fails files.
        // No strike: a file that really changed fails the same way for any worker. With no
        // other worker its word stands: only the unreadable files fail.
        if !failures.isEmpty, checksResults(of: key.job), scheduler.canRetryElsewhere(key, than: peer),
           verification.retriedReads.insert(key).inserted {
            logger.info("worker could not read an item's source; trying another worker", metadata: [
                "job": "\(key.job)", "item": "\(key.item)", "reason": "\(String(failures[0].1.prefix(200)).debugDescription)",
            ])
            reopen(key, refusing: peer, reason: "could not read the source: \(String(failures[0].1.prefix(200)))")
            return true
        }
        if checksResults(of: key.job) {
            check(pieces: blocks, item: key, from: peer, expected: expected)
        } else {
            hand(key, expected: expected, blocks: blocks)
        }
        for (file, reason) in failures { fileFailed(FileKey(job: key.job, file: file), reason: reason) }
        return true
    }

    /// Why an answer's blocks written in place cannot be right (a length other than planned), or nil.
    private func placedLengthMismatch(_ result: RefResult, item key: ItemKey) -> String? {
        guard let job = jobs[key.job], let sent = job.sentBlocks[key.item] ?? job.items[key.item]?.blocks else { return nil }
        for (ref, piece) in zip(sent, result.pieces) where piece.failure == nil {
            guard let layout = job.open[ref.file]?.plan.layout, layout.count > ref.index else { continue }
            let range = layout.range(of: ref.index)
            let planned = StoredBlocks.encodedLength(rawLength: Int(range.upperBound - range.lowerBound), isLast: layout.isLast(ref.index))
            if piece.pieceLength != UInt64(planned) { return "block written in place is \(piece.pieceLength) bytes, \(planned) planned" }
        }
        return nil
    }

    /// The checks every answer passes: the first for its item, from its assignee, for a
    /// running job, with one block per block sent and each block's length as planned (nil:
    /// a block the worker could not read). Returns the blocks sent, or nil when dropped.
    private func admit(_ key: ItemKey, from peer: [UInt8], rawLengths: [Int?]) -> [BlockRef]? {
        switch scheduler.verdict(key, from: peer) {
        case .accepted:
            break
        case .late, .notAssigned:
            let verdict = scheduler.complete(key, from: peer)  // frees a slower copy's credit
            countLate(verdict, of: "result", key: key, from: peer)  // the first result won, the job ended, or the item was taken back
            traces[key.job]?.answered(key.item, by: peer, at: MonotonicClock.micros(), won: false)
            return nil
        case .unknownItem:
            countMalformed(ProtocolError.malformed("result for unknown item \(key.item)"), from: peer)
            return nil
        }
        guard let job = jobs[key.job], job.state == .running else {
            lateResults += 1
            return nil
        }
        guard let expected = job.sentBlocks[key.item] ?? job.items[key.item]?.blocks else {
            lateResults += 1
            return nil
        }
        guard rawLengths.count == expected.count else {
            countMalformed(ProtocolError.malformed("result has \(rawLengths.count) blocks, item has \(expected.count)"), from: peer)
            itemWentWrong(key, on: peer, reason: "the result had \(rawLengths.count) blocks for \(expected.count)")
            return nil
        }
        for (ref, rawLength) in zip(expected, rawLengths) {
            // A file that failed meanwhile is not written; its blocks need no check.
            guard let rawLength, let layout = job.open[ref.file]?.plan.layout else { continue }
            let range = layout.range(of: ref.index)
            if UInt64(rawLength) != range.upperBound - range.lowerBound {
                countMalformed(ProtocolError.malformed("block length \(rawLength) does not match the plan"), from: peer)
                itemWentWrong(key, on: peer, reason: "a block's length did not match the plan")
                return nil
            }
        }
        if let since = scheduler.heldSince(key, by: peer) { CoordinatorMetrics.record(.now - since, in: metrics.itemDuration) }
        _ = scheduler.complete(key, from: peer)
        traces[key.job]?.answered(key.item, by: peer, at: MonotonicClock.micros(), won: true)
        return expected
    }

    /// Hands an accepted item's blocks (nil: not written, its file fails) to the writers; the
    /// window moves past the item once they are all in their outputs.
    func hand(_ key: ItemKey, expected: [BlockRef], blocks: [PendingBlock?]) {
        // Moved out and back in: mutating a copy would copy the job's per-file arrays each time.
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        job.sentBlocks.removeValue(forKey: key.item)
        job.dirty = true
        for case .bytes(let block)? in blocks {
            job.bytesRelayed += UInt64(block.rawLength)
            metrics.relayedBytes.increment(by: block.rawLength)
        }
        if checksResults(of: key.job) { traces[key.job]?.verified(key.item, at: MonotonicClock.micros()) }
        // Pieces of multi-block files wait on disk for their stitch, not in a writer's memory:
        // they do not hold the window. A file with any block from a remote worker is joined
        // by a writer instead (its pieces so far go there too).
        var handed = Set<BlockRef>()
        var touched = Set<Int>()
        // Received blocks go to their writers grouped by file, one command per writer: one trip
        // to the I/O pool and one report for all of an item's files there, not one per block.
        var received: [(spec: OutputSpec, blocks: [(index: Int, block: ResultBlock)])] = []
        // Whole members (a bundle's one-block files) go as one command per writer.
        var members: [Int: [(spec: OutputSpec, piece: PieceBlock)]] = [:]
        for (ref, block) in zip(expected, blocks) {
            guard let block, var open = job.open[ref.file] else { continue }
            if case .piece(let piece) = block, open.placement != nil, !piece.placed, !open.joinedByWriter {
                // Not where the placed output expects it: a writer joins the file instead.
                joinInWriter(ref.file, of: &job)
                open.joinedByWriter = true
            }
            let file = open.plan
            switch block {
            case .bytes(let bytes):
                if received.last?.spec.key.file == ref.file {
                    received[received.count - 1].blocks.append((ref.index, bytes))
                } else {
                    if file.layout.count > 1 { joinInWriter(ref.file, of: &job) }
                    received.append((spec(of: file, in: job), [(ref.index, bytes)]))
                }
                handed.insert(ref)
            case .piece(let piece) where file.layout.count == 1:
                let spec = spec(of: file, in: job)
                if let partition = writerPartition(of: spec.key) { members[partition, default: []].append((spec, piece)) }
                handed.insert(ref)
            case .piece(let piece) where open.joinedByWriter:
                let spec = spec(of: file, in: job)
                writer(for: spec.key)?.yield(.piece(spec, index: ref.index, piece))
                handed.insert(ref)
            case .piece(let piece):
                // In place: copying the list for each block would make a big file quadratic.
                job.stitchPieces[ref.file, default: Array(repeating: nil, count: file.layout.count)][ref.index] = piece
                if piece.placed { job.open[ref.file]?.placement?.blocksIn += 1 }
                job.bytesDone += UInt64(piece.rawLength)
                job.open[ref.file]?.written += UInt64(piece.rawLength)
                job.inProgress.insert(ref.file)
                touched.insert(ref.file)
            }
        }
        var receivedBy: [Int: [(spec: OutputSpec, blocks: [(index: Int, block: ResultBlock)])]] = [:]
        for file in received {
            if let partition = writerPartition(of: file.spec.key) { receivedBy[partition, default: []].append(file) }
        }
        for (partition, files) in receivedBy.sorted(by: { $0.key < $1.key }) { writerSinks[partition].yield(.blocks(files)) }
        for (partition, list) in members.sorted(by: { $0.key < $1.key }) { writerSinks[partition].yield(.members(list)) }
        if handed.isEmpty {
            retire(key, in: &job)
        } else {
            job.unwritten[key.item] = handed
        }
        jobs[key.job] = job
        for file in touched.sorted() { advanceStitch(FileKey(job: key.job, file: file)) }
    }

    /// From now on a writer joins file `index`: the pieces already in go to it.
    private func joinInWriter(_ index: Int, of job: inout JobRecord) {
        guard let open = job.open[index], !open.joinedByWriter else { return }
        job.open[index]?.joinedByWriter = true
        job.filesJoinedByWriter += 1
        job.stitching.removeValue(forKey: index)
        guard let pieces = job.stitchPieces.removeValue(forKey: index) else { return }
        // Their progress was counted when they came in; the writer's reports count it again.
        job.bytesDone -= UInt64(pieces.reduce(0) { $0 + ($1?.rawLength ?? 0) })
        job.open[index]?.written = 0
        let spec = spec(of: open.plan, in: job)
        for (block, piece) in pieces.enumerated() {
            guard let piece else { continue }
            writer(for: spec.key)?.yield(.piece(spec, index: block, piece))
        }
    }

    /// What a writer needs for a file's output.
    private func spec(of file: PlannedFile, in job: JobRecord) -> OutputSpec {
        OutputSpec(
            key: FileKey(job: job.id, file: file.index), outputPath: job.outputPath(of: file), relativePath: file.relativePath.bytes,
            header: header(of: file, in: job), blockCount: file.layout.count, stamp: file.stamp,
            replace: job.request.force || file.replacesOwnOutput, workspace: job.workspace.path)
    }

    // MARK: - Stitching

    /// Sends the next segments of a file's stitch: the pieces that came in since the last
    /// segment, once they make a run of the configured segment size from it, or all that are left with
    /// the trailer once every piece is in. So the copy keeps pace with compression and only a
    /// last segment is left when the last block is done. The stitch starts on the least busy
    /// shared-storage worker (other than `excluded`); with none, a writer joins the file once
    /// its pieces are all in.
    private func advanceStitch(_ key: FileKey, excluding excluded: [UInt8]? = nil) {
        // Moved out and back in: the pieces table is read in place, not copied.
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        defer { jobs[key.job] = job }
        guard job.state == .running, let open = job.open[key.file], !open.joinedByWriter,
              let pieces = job.stitchPieces[key.file] else { return }
        let file = open.plan
        if let placement = open.placement {
            // Written in place: once every block is in, the output only lacks its header and trailer.
            guard placement.blocksIn == file.layout.count else { return }
            var checksum = MemberChecksum()
            for case let piece? in pieces { checksum.append(crc: piece.crc, length: piece.rawLength) }
            let end = placement.end(of: file.layout)
            job.stitchPieces.removeValue(forKey: key.file)
            writer(for: key)?.yield(.placed(
                spec(of: file, in: job), output: JobWorkspace.stitchPath(in: job.workspace.path, file: key.file, attempt: placement.output),
                end: end, trailer: checksum.trailer.encoded()))
            return
        }
        var stitch = job.stitching[key.file]
        while stitch?.lastSent != true {
            let first = stitch?.sentPieces ?? 0
            var next = first
            var bytes: UInt64 = 0
            while next < pieces.count, next - first < Self.stitchSegmentPieces, let piece = pieces[next] {
                bytes += piece.length
                next += 1
            }
            let isLast = next == pieces.count
            guard isLast || bytes >= UInt64(configuration.stitchSegmentBytes) || next - first == Self.stitchSegmentPieces else { return }
            let header = header(of: file, in: job).encoded()
            if stitch == nil {
                let candidates = workers.all.filter { worker in
                    worker.isShared(for: key.job) && worker.routingID != excluded
                        && !verification.quarantine.isQuarantined(verification.identity(of: worker.routingID))
                }
                let worker = candidates.min { first, second in
                    let (a, b) = (scheduler.busy(first.routingID), scheduler.busy(second.routingID))
                    return a != b ? a < b : first.routingID.lexicographicallyPrecedes(second.routingID)
                }
                guard let worker else {
                    if isLast { joinInWriter(key.file, of: &job) }
                    return
                }
                stitch = StitchInProgress(worker: worker.routingID, attempt: nextAttempt, headerLength: header.count, now: .now)
                nextAttempt += 1
            }
            guard var current = stitch, let worker = workers[current.worker] else { return }
            var trailer: [UInt8] = []
            if isLast {
                var checksum = MemberChecksum()
                for case let piece? in pieces { checksum.append(crc: piece.crc, length: piece.rawLength) }
                trailer = checksum.trailer.encoded()
            }
            var expectedCRC: UInt32?
            if checksResults(of: key.job) {
                // Every piece's bytes were read by its check; a verifier that does not report
                // what it read leaves nothing to check the segment against: a writer joins it.
                let stored = pieces[first..<next].compactMap { $0.flatMap { piece in piece.storedCRC.map { (crc: $0, length: piece.length) } } }
                guard stored.count == next - first else {
                    joinInWriter(key.file, of: &job)
                    return
                }
                expectedCRC = StitchSegment.expectedCRC(header: first == 0 ? header : [], pieces: stored, trailer: trailer)
            }
            send(.stitch(StitchRequest(
                jobID: key.job, file: UInt32(key.file), attempt: current.attempt, workspace: job.workspace.path.bytes,
                offset: current.end, syncResult: !worker.sharesKernel, permissions: file.stamp.permissions,
                modifiedSeconds: file.stamp.modifiedSeconds, modifiedNanoseconds: file.stamp.modifiedNanoseconds,
                header: first == 0 ? header : [], trailer: trailer,
                pieces: pieces[first..<next].compactMap { piece in
                    piece.map { StitchPiece(item: $0.item, attempt: $0.attempt, position: UInt32($0.position), length: $0.length) }
                })), to: current.worker)
            if current.awaited.isEmpty { current.since = .now }
            current.sentPieces = next
            let start = first == 0 ? 0 : current.end
            current.end += bytes + UInt64(trailer.count)
            current.awaited.append(StitchSegment(
                range: start..<current.end, expectedCRC: expectedCRC, pieces: first..<next, header: first == 0 ? header : [], trailer: trailer))
            current.lastSent = isLast
            stitch = current
            job.stitching[key.file] = current
        }
    }

    /// Most pieces in one segment.
    static let stitchSegmentPieces = 4096

    /// The coordinator's own way: a writer appends the pieces to the output (copy_file_range).
    func stitchInWriter(_ key: FileKey) {
        guard var job = jobs.removeValue(forKey: key.job) else { return }
        joinInWriter(key.file, of: &job)
        jobs[key.job] = job
    }

    /// A worker's answer to a stitch segment. Each must end the output where the coordinator
    /// computed, and is checked (when the job's answers are); once the last is in and every
    /// check passed, the output is adopted like a one-block file and the worker removes the
    /// pieces. A failed segment falls back to a writer; answers of any other attempt are late.
    private func stitched(_ result: StitchResult, from peer: [UInt8]) {
        let key = FileKey(job: result.jobID, file: Int(result.file))
        guard jobs[key.job]?.state == .running, var current = jobs[key.job]?.stitching[key.file],
              current.worker == peer, current.attempt == result.attempt else {
            lateResults += 1
            return
        }
        if let failure = result.failure {
            let path = jobs[key.job]?.open[key.file]?.plan.relativePath.display ?? ""
            logger.warning("a worker could not join a file's pieces; the coordinator joins them", metadata: [
                "job": "\(key.job)", "file": "\(path.debugDescription)",
                "reason": "\(String(failure.prefix(200)).debugDescription)",
            ])
            stitchInWriter(key)
            return
        }
        guard let segment = current.awaited.popFirst(), result.length == segment.range.upperBound else {
            countMalformed(ProtocolError.malformed("stitched up to \(result.length), the segment ends at \(current.awaited.first?.range.upperBound ?? 0)"), from: peer)
            stitchInWriter(key)
            return
        }
        current.confirmed = segment.range.upperBound
        current.since = .now
        var check: SegmentCheck?
        if let expectedCRC = segment.expectedCRC, let job = jobs[key.job], let pieces = job.stitchPieces[key.file],
           segment.pieces.upperBound <= pieces.count {
            check = SegmentCheck(
                id: verification.nextCheckID, file: key, attempt: result.attempt, stitcher: peer,
                path: JobWorkspace.stitchPath(in: job.workspace.path, file: key.file, attempt: result.attempt), range: segment.range,
                expectedCRC: expectedCRC, header: segment.header, pieces: pieces[segment.pieces].compactMap { $0 }, trailer: segment.trailer)
            verification.nextCheckID += 1
            current.checking.insert(verification.nextCheckID - 1)
        }
        jobs[key.job]?.stitching[key.file] = current
        if let check {
            checkSegment(check)
        } else if current.isComplete {
            adoptStitch(key)
        }
    }

    /// A stitch is whole and checked: its output is adopted like a one-block file, and the
    /// worker that stitched it removes the pieces.
    func adoptStitch(_ key: FileKey) {
        // Moved out and back in: updating a copy would copy the job's stitch tables.
        guard var running = jobs.removeValue(forKey: key.job) else { return }
        defer { jobs[key.job] = running }
        guard let stitch = running.stitching.removeValue(forKey: key.file) else { return }
        let pieces = running.stitchPieces.removeValue(forKey: key.file) ?? []
        let member = PieceBlock(
            path: JobWorkspace.stitchPath(in: running.workspace.path, file: key.file, attempt: stitch.attempt),
            crc: 0, rawLength: 0, length: stitch.confirmed, item: 0, attempt: stitch.attempt, position: 0)
        if let file = running.open[key.file]?.plan {
            writer(for: key)?.yield(.members([(spec(of: file, in: running), member)]))
        }
        // The worker that stitched frees the pieces' space: that costs the kernel time per
        // byte, which the coordinator must not spend.
        send(.discard(PieceDiscard(jobID: key.job, workspace: running.workspace.path.bytes, pieces: pieces.compactMap { piece in
            piece.map { StitchPiece(item: $0.item, attempt: $0.attempt, position: UInt32($0.position), length: 0) }
        })), to: stitch.worker)
        running.freeing[stitch.worker, default: 0] += 1
    }

    /// Stitches held by a worker that is gone, or whose segments are past their time, start
    /// again from the first piece elsewhere, as a new attempt.
    private func restartStitches(now: ContinuousClock.Instant, leaving peer: [UInt8]? = nil) {
        for id in jobOrder {
            guard let job = jobs[id] else { continue }
            for (file, stitch) in job.stitching {
                // A worker joins at 50 MB/s at the least; beyond that, plus the item deadline, it is stuck.
                let allowance = configuration.itemDeadline + .seconds(Double(stitch.outstandingBytes) / 50e6)
                let stalled = !stitch.awaited.isEmpty && now - stitch.since > allowance
                guard stitch.worker == peer || stalled else { continue }
                jobs[id]?.stitching.removeValue(forKey: file)
                advanceStitch(FileKey(job: id, file: file), excluding: stitch.worker)
            }
        }
    }

    /// The gzip header of a file's member: its name and mtime, like gzip writes.
    func header(of file: PlannedFile, in job: JobRecord) -> GzipHeader {
        // An archive's member names no file and has no time, as `tar | gzip` writes it: the
        // same tree makes the same bytes.
        if job.archive != nil { return GzipHeader(fileName: nil, modificationTime: 0, level: job.request.level) }
        return GzipHeader(fileName: file.relativePath.lastComponent, modificationTime: UInt32(clamping: file.stamp.modifiedSeconds), level: job.request.level)
    }

    /// The writer partition of a file, for a command about to be sent to it (so the next
    /// tick asks it to flush); nil before `run` has started the writers.
    private func writer(for key: FileKey) -> AsyncStream<WriterCommand>.Continuation? {
        writerPartition(of: key).map { writerSinks[$0] }
    }

    /// The writer partition that owns file `key`'s output (noted for the next flush); nil
    /// before the writers run.
    private func writerPartition(of key: FileKey) -> Int? {
        guard !writerSinks.isEmpty else { return nil }
        let partition = Int((key.job &* 1_000_003 &+ UInt64(key.file)) % UInt64(writerSinks.count))
        writersToFlush.insert(partition)
        return partition
    }

    /// Puts back every item a worker held, to be sent again before new work.
    private func requeue(worker peer: [UInt8], now: ContinuousClock.Instant) {
        guard let worker = workers[peer] else { return }
        restartStitches(now: now, leaving: peer)
        for id in jobOrder { freed(job: id, by: peer, all: true) }
        let held = scheduler.removeWorker(peer)
        metrics.itemsRequeued.increment(by: held.count)
        for id in traces.keys { traces[id]?.workerLost(peer, at: MonotonicClock.micros()) }
        // Worker ids are new each run: an offset kept past a worker's life would only pile up.
        clocks.forget(peer)
        if !held.isEmpty {
            logger.warning("requeued items", metadata: ["worker": "\(worker.hello.workerID)", "items": "\(held.count)"])
        }
        failStranded()
    }

    private func sendFailed(to peer: [UInt8], error: ZMQError) {
        guard let worker = workers[peer] else { return }
        logger.warning("send to worker failed; treating it as gone", metadata: ["worker": "\(worker.hello.workerID)", "error": "\(error)"])
        workerGone(peer, now: .now)
    }

    /// A worker left, fell silent or cannot be reached: its items and stitches go elsewhere,
    /// it is forgotten, and the checks it was to make are made by others.
    private func workerGone(_ peer: [UInt8], now: ContinuousClock.Instant) {
        requeue(worker: peer, now: now)
        workers.remove(peer)
        verifierLeft(peer, now: now)
        pump()
    }

    func countMalformed(_ error: any Error, from peer: [UInt8]) {
        malformedMessages += 1
        warn("dropped malformed message", metadata: [
            "peer": "\(String(decoding: peer.prefix(64), as: UTF8.self).debugDescription)", "error": "\(error)", "count": "\(malformedMessages)",
        ])
    }

    func send(_ message: WireMessage, to peer: [UInt8]) {
        endpoint?.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(message)))
        workers.sent(peer, at: .now)
    }

    /// Records who a worker announcing itself is, for its strikes (`VerificationBook.identities`).
    private func identify(_ peer: [UInt8], userID: String?) {
        verification.identities[peer] = VerificationBook.identity(routingID: peer, userID: userID)
    }

    /// Sends a `verify` item; its deflate frames are the ones the answer came in (no copy).
    func sendVerify(_ request: VerifyRequest, to peer: [UInt8]) {
        send(.verify(request), to: peer)
    }

    private func tick() {
        let now = ContinuousClock.now
        sendHeldChecks()
        // Any message is a sign of life: a worker sent something within the interval needs
        // no heartbeat, so a busy cluster exchanges none.
        for peer in workers.quiet(at: now) { send(.heartbeat, to: peer) }
        if workers.roundDue(at: now) {
            for peer in workers.silent(at: now) {
                logger.warning("worker silent; declared dead", metadata: ["worker": "\(workerName(peer))"])
                workerGone(peer, now: now)
            }
            expireProbes(now: now)
            // Workers that left took their credit with them.
            for id in jobOrder { refreshWindow(id) }
            restartStitches(now: now)
            logWarningSummaries(now: now)
            if !verification.pending.isEmpty { takeBackChecks(now: now) }
            for id in jobOrder { removeWorkspaceOnceFreed(id, now: now) }
            pump()
            checkClients(now: now)
            // Scrapes come seconds apart; joins and departures update the gauges at once.
            updateGauges()
        }
        // Sealed outputs become durable and visible in batches, at most a tick late.
        flushWriters()
        for id in jobOrder {
            guard var job = jobs[id], job.dirty, now - job.lastProgress >= configuration.progressInterval else { continue }
            if traces[id] != nil { sampleTrace(of: job) }
            job.dirty = false
            job.lastProgress = now
            job.sink.yield(.progress(job.snapshot(workers: workers.count, now: now)))
            jobs[id] = job
        }
    }

    /// Asks every writer sent something since its last flush to publish what it has sealed.
    /// Only those can hold a sealed output: a job whose files workers stitch leaves the
    /// writers idle, and waking each every tick costs.
    private func flushWriters() {
        for partition in writersToFlush where partition < writerSinks.count {
            writerSinks[partition].yield(.flush)
        }
        writersToFlush.removeAll(keepingCapacity: true)
    }

    // MARK: - Dispatch

    /// Hands out items while the scheduler has assignments: some job has sendable work and a
    /// worker with credit has its engine.
    func pump() {
        guard let dispatchSink, !stopping else { return }
        repeat {
            while let assignment = scheduler.nextAssignment() {
                if workers[assignment.worker]?.isShared(for: assignment.item.job) == true {
                    guard let work = makeReference(assignment) else { continue }
                    if traces[work.jobID] != nil {
                        traceDispatch(assignment, blocks: work.blocks.count, bytes: work.blocks.reduce(0) { $0 + $1.dataLength })
                    }
                    send(.workRef(work), to: assignment.worker)
                    for check in verification.outgoing.take(for: assignment.worker) { sendVerify(check, to: assignment.worker) }
                } else {
                    guard var dispatch = makeDispatch(assignment) else { continue }
                    dispatch.checks = verification.outgoing.take(for: assignment.worker)
                    if traces[dispatch.job] != nil {
                        dispatch.traced = true
                        traceDispatch(assignment, blocks: dispatch.blocks.count,
                                      bytes: dispatch.blocks.reduce(0) { $0 + $1.readRange.count - $1.dictionaryLength })
                    }
                    dispatchSink.yield(dispatch)
                }
            }
        } while flushIdlePlanners()
    }

    /// Starts finding out how `worker` gets at job `id`'s files: shared when it says so,
    /// remote when it says so, a probe when it is in `auto` mode.
    private func assignStorage(worker peer: [UInt8], job id: UInt64, now: ContinuousClock.Instant = .now) {
        guard let job = jobs[id], let start = workers.startStorage(
            of: peer, job: id, archive: job.archive != nil, canProbe: job.probeSample != nil, at: now) else { return }
        switch start {
        case .archive:
            return
        case .shared:
            scheduler.setReadsItself(id, on: peer, true)
        case .remote:
            break
        case .probe:
            scheduler.pause(id, on: peer)
            send(.probe(job.probe()), to: peer)
        }
        refreshWindow(id)
    }

    /// A worker that leaves a probe unanswered (a worker from before probes, a stuck file
    /// system) gets the job's items in messages.
    private func expireProbes(now: ContinuousClock.Instant) {
        for (peer, job) in workers.expireProbes(at: now) {
            scheduler.resume(job, on: peer)
            logger.warning("storage probe unanswered; sending the job's blocks in messages", metadata: [
                "worker": "\(workerName(peer))", "job": "\(job)",
            ])
        }
    }

    /// The blocks of an assigned item still worth sending (their files have not failed); nil,
    /// and the item settled, when none are.
    private func blocksToSend(_ key: ItemKey, in job: inout JobRecord) -> [BlockRef]? {
        let blocks = (job.items[key.item]?.blocks ?? []).filter { job.open[$0.file] != nil }
        if blocks.isEmpty {
            retire(key, in: &job, settling: true)
            job.sentBlocks.removeValue(forKey: key.item)
            return nil
        }
        job.sentBlocks[key.item] = blocks
        return blocks
    }

    /// An assignment for a shared-storage worker: references and a fresh attempt number.
    private func makeReference(_ assignment: Assignment) -> RefAssignment? {
        let key = assignment.item
        guard jobs[key.job]?.state == .running, let worker = workers[assignment.worker],
              var job = jobs.removeValue(forKey: key.job) else {
            scheduler.settle(key)
            return nil
        }
        defer { jobs[key.job] = job }
        guard let refs = blocksToSend(key, in: &job) else { return nil }
        let attempt = nextAttempt
        nextAttempt += 1
        job.attempts[key.item, default: [:]][assignment.worker] = attempt
        let placed = place(key.item, blocks: refs, in: &job)
        if placed { job.placedAttempts.insert(attempt) }
        let blocks = refs.compactMap { ref -> RefBlock? in
            guard let open = job.open[ref.file] else { return nil }
            let file = open.plan
            let range = file.layout.range(of: ref.index)
            let dictionary = Self.dictionaryRange(of: ref.index, in: file, setting: job.setting)
            return RefBlock(
                file: UInt32(ref.file), index: UInt32(ref.index), path: job.sourcePath(of: file).bytes, offset: dictionary.lowerBound,
                dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound), dataLength: Int(range.upperBound - range.lowerBound),
                isLast: file.layout.isLast(ref.index), size: file.stamp.size, modifiedSeconds: file.stamp.modifiedSeconds,
                modifiedNanoseconds: file.stamp.modifiedNanoseconds, inode: file.stamp.inode, permissions: file.stamp.permissions,
                header: file.layout.count == 1 ? header(of: file, in: job).encoded() : nil,
                placement: placed ? open.placement.map { RefPlacement(attempt: $0.output, offset: $0.offset(of: ref.index, in: file.layout)) } : nil)
        }
        return RefAssignment(
            jobID: key.job, itemID: key.item, attempt: attempt, setting: job.setting, workspace: job.workspace.path.bytes,
            syncPieces: !worker.sharesKernel, blocks: blocks)
    }

    /// Whether item `item` (blocks of one file) is written in place: the file is placed, and
    /// no dispatch of this item went out before, which might still be writing. A second
    /// dispatch breaks the file's placement: a writer joins it from here on (`Placement`).
    private func place(_ item: UInt64, blocks: [BlockRef], in job: inout JobRecord) -> Bool {
        guard let index = blocks.first?.file, blocks.allSatisfy({ $0.file == index }),
              let open = job.open[index], !open.joinedByWriter,
              Placement.applies(to: open.plan.layout, setting: job.setting) else { return false }
        var placement = open.placement ?? Placement(output: nextAttempt, headerLength: header(of: open.plan, in: job).encoded().count)
        if open.placement == nil { nextAttempt += 1 }
        let placed = placement.admit(item: item)
        job.open[index]?.placement = placement
        if placement.broken { joinInWriter(index, of: &job) }
        return placed
    }

    /// The bytes before block `index` that prime it: none for an engine without a dictionary.
    static func dictionaryRange(of index: Int, in file: PlannedFile, setting: EngineSetting) -> Range<UInt64> {
        guard setting.engine.usesDictionary else {
            let start = file.layout.range(of: index).lowerBound
            return start..<start
        }
        return file.layout.dictionaryRange(of: index)
    }

    /// What a reader must load for an assignment: the item's blocks whose files have not
    /// failed. An item with nothing left is settled instead (nil).
    private func makeDispatch(_ assignment: Assignment) -> Dispatch? {
        let key = assignment.item
        guard jobs[key.job]?.state == .running, var job = jobs.removeValue(forKey: key.job) else {
            scheduler.settle(key)
            return nil
        }
        defer { jobs[key.job] = job }
        guard let refs = blocksToSend(key, in: &job) else { return nil }
        var blocks: [DispatchBlock] = []
        for ref in refs {
            guard let file = job.open[ref.file]?.plan else { continue }
            let range = file.layout.range(of: ref.index)
            let dictionary = Self.dictionaryRange(of: ref.index, in: file, setting: job.setting)
            blocks.append(DispatchBlock(
                ref: ref, path: job.sourcePath(of: file), stamp: file.stamp,
                readRange: dictionary.lowerBound..<range.upperBound,
                dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound),
                isLast: file.layout.isLast(ref.index), archive: job.archive?.layout))
        }
        return Dispatch(
            routingID: assignment.worker, job: key.job, item: key.item, setting: job.setting, blocks: blocks,
            verify: checksResults(of: key.job))
    }

    private func readFailed(_ dispatch: Dispatch, failures: ReadFailures) {
        for (file, reason) in failures.files {
            fileFailed(FileKey(job: dispatch.job, file: file), reason: reason)
        }
        // The item's other blocks are still good; send it again without the failed files.
        scheduler.requeue(ItemKey(job: dispatch.job, item: dispatch.item), from: dispatch.routingID)
        metrics.itemsRequeued.increment()
        pump()
    }

    /// An item is written (or, `settling`, given up with nothing to write): the window may
    /// move past it and the job forgets it.
    private func retire(_ key: ItemKey, in job: inout JobRecord, settling: Bool = false) {
        if settling { scheduler.settle(key) } else { scheduler.written(key) }
        traces[key.job]?.written(key.item, at: MonotonicClock.micros())
        job.items.removeValue(forKey: key.item)
    }

    /// `retire` with settling, for a job in the table.
    func settle(_ key: ItemKey) {
        scheduler.settle(key)
        traces[key.job]?.written(key.item, at: MonotonicClock.micros())
        jobs[key.job]?.items.removeValue(forKey: key.item)
    }

    // MARK: - Files

    /// Blocks that reached their output, or were dropped with their file: items whose every
    /// handed block is accounted for leave the dispatch window. Returns whether any did.
    private func blocksWritten(_ refs: [BlockRef], in job: inout JobRecord) -> Bool {
        var moved = false
        for ref in refs {
            guard let item = job.item(holding: ref), var left = job.unwritten[item], left.remove(ref) != nil else { continue }
            if left.isEmpty {
                job.unwritten.removeValue(forKey: item)
                retire(ItemKey(job: job.id, item: item), in: &job)
                moved = true
            } else {
                job.unwritten[item] = left
            }
        }
        return moved
    }

    /// What a writer did with one command: each file's progress and failures, then what
    /// follows once per job rather than once per file (finishing, scanning on, flushing,
    /// dispatching into the window the written blocks freed).
    private func writerReported(_ outcomes: [Result<OutputWriter.Progress, WriteFailure>]) {
        var moved = false
        var finishedIn: [UInt64] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let progress):
                let (freed, finished) = written(progress)
                moved = moved || freed
                if finished, !finishedIn.contains(progress.key.job) {
                    finishedIn.append(progress.key.job)
                }
            case .failure(let failure) where failure.journal:
                fileFailed(failure.key, reason: failure.reason)
                cancel(job: failure.key.job, reason: failure.reason, as: .failed)
            case .failure(let failure):
                fileFailed(failure.key, reason: failure.reason)
            }
        }
        for id in finishedIn {
            checkFinished(id)
            continueScan(id)
        }
        var jobsReported: [UInt64] = []
        for case .success(let progress) in outcomes where !jobsReported.contains(progress.key.job) {
            jobsReported.append(progress.key.job)
            flushIfOnlyFlushLeft(progress.key.job)
        }
        if moved { pump() }
    }

    /// Counts one writer step of an open file. Returns whether blocks it wrote moved a dispatch
    /// window, and whether it finished the file.
    private func written(_ progress: OutputWriter.Progress) -> (moved: Bool, finished: Bool) {
        guard jobs[progress.key.job]?.open[progress.key.file] != nil,
              var job = jobs.removeValue(forKey: progress.key.job) else { return (false, false) }
        let refs = progress.blocks.map { BlockRef(file: progress.key.file, index: $0) }
        let moved = blocksWritten(refs, in: &job)
        job.bytesDone += progress.rawBytes
        job.bytesOut += progress.outputBytes
        metrics.outputBytes.increment(by: progress.outputBytes)
        job.open[progress.key.file]?.written += progress.rawBytes
        job.inProgress.insert(progress.key.file)
        job.dirty = true
        if progress.sealed { job.sealed(progress.key.file) }
        if progress.finished, let file = job.close(progress.key.file)?.plan {
            job.filesFinished += 1
            job.filesCompressed += 1
            job.bytesIn += file.stamp.size
            metrics.inputBytes.increment(by: file.stamp.size)
            metrics.filesDone.increment()
            if job.request.fileEvents == true {
                job.sink.yield(.fileDone(FileDone(path: file.relativePath.display, bytesIn: file.stamp.size, bytesOut: progress.outputTotal)))
            }
        }
        jobs[progress.key.job] = job
        return (moved, progress.finished)
    }

    /// Publishes what the writers have sealed now, rather than up to a tick later (a tenth of
    /// a second, most of a small job's time), once every file job `id` has left is sealed.
    private func flushIfOnlyFlushLeft(_ id: UInt64) {
        if jobs[id]?.onlyFlushLeft == true { flushWriters() }
    }

    func fileFailed(_ key: FileKey, reason: String) {
        guard jobs[key.job]?.open[key.file] != nil, var job = jobs.removeValue(forKey: key.job) else { return }
        // Its blocks still waiting for a writer will never be written: they no longer hold the
        // window. Found before the file closes: closed files belong to no item.
        let dropped = job.unwritten.values.flatMap { $0.filter { $0.file == key.file } }
        let moved = blocksWritten(dropped, in: &job)
        defer { if moved { pump() } }
        guard let open = job.close(key.file) else {
            jobs[key.job] = job
            return
        }
        let file = open.plan
        job.filesFinished += 1
        job.bytesDone += file.stamp.size - min(file.stamp.size, open.written)
        let note = EntryNote(path: file.relativePath.display, reason: reason)
        job.failed.append(note)
        metrics.filesFailed.increment()
        job.sink.yield(.fileFailed(note))
        // A stitch of it may be under way; its answer will find nothing to adopt.
        job.stitchPieces.removeValue(forKey: key.file)
        job.stitching.removeValue(forKey: key.file)
        jobs[key.job] = job
        writer(for: key)?.yield(.discardFile(key))
        checkFinished(key.job)
        continueScan(key.job)
        flushIfOnlyFlushLeft(key.job)
    }
}

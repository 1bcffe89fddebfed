import CoreMetrics
import Foundation
import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol
import SqueezeZMQ

/// The coordinator: a thin actor around `CoordinatorCore`, the value that holds the state of
/// jobs and workers and decides who gets what.
///
/// Each event — a worker's message, a tick, a scan batch, a read, a writer's report, a check,
/// a client's request — goes to the core with the time, and the effects it leaves are carried
/// out here, in order: messages to workers, items for the readers, commands for the writers,
/// checks, scans, journal rows and job events. Scanning, reading, checking and writing run on
/// the I/O pools; the actor holds no work. Its only suspension points are in its public API.
public actor Coordinator {
    /// The configuration.
    public let configuration: CoordinatorConfiguration
    /// The ZeroMQ context its endpoints live in.
    let context: ZMQContext
    /// Threads for blocking disk work: scans, reads, writes, the journal.
    let pool: BlockingIOPool
    /// Threads that check answers, apart from the I/O pool so a check never delays a publish.
    let verifyPool: BlockingIOPool
    /// Read buffers for items sent to remote workers: sent without a copy, and back here once
    /// libzmq has sent them (and, in embedded mode, the worker has let go of them).
    let readBuffers: FrameBufferPool
    /// Which local process is at the other end of a worker's loopback connection, looked up
    /// on a thread of its own (a lookup may wait for its turn to walk `/proc`), which also
    /// reads back storage probes' answers: small reads that must not wait behind checks.
    let loopbackPeers = LoopbackPeers()
    let lookupThread = BlockingIOPool(threads: 1, name: "squeeze-peers")
    /// Where the actor and its tasks log.
    let logger: Logger
    /// What the coordinator knows and decides.
    private(set) var core: CoordinatorCore
    /// Idle, running (with its outbox), stopping or stopped.
    private var lifecycle = CoordinatorLifecycle.idle
    /// Each running job's event streams: its submitter's and those of clients attached since.
    private var jobEvents: [JobID: JobEventSink] = [:]
    /// Submissions being served to clients; shutdown waits for their final events to leave.
    private(set) var openSubmissions = 0
    /// `shutdown()` from any thread.
    let shutdownSignal = ShutdownSignal()
    /// The registered workers' routing ids, for the workers' endpoint's receive limit.
    let registeredPeers = RegisteredPeers()

    /// A coordinator using `context` for its sockets.
    public init(configuration: CoordinatorConfiguration = CoordinatorConfiguration(), context: ZMQContext, logger: Logger = Logger(label: "squeeze.coordinator")) {
        self.configuration = configuration
        self.context = context
        self.logger = logger
        let metrics = CoordinatorMetrics(factory: configuration.metricsFactory ?? NOOPMetricsHandler.instance)
        core = CoordinatorCore(configuration: configuration, logger: logger, metrics: metrics, at: .current())
        pool = BlockingIOPool(threads: configuration.ioThreads, name: "squeeze-io")
        verifyPool = BlockingIOPool(threads: 2, name: "squeeze-verify")
        // Idle read buffers kept for reuse: four of the largest items, so reads mostly reuse
        // faulted-in pages; a larger relay budget is for bursts, not for memory held while idle.
        readBuffers = FrameBufferPool(keepingBytes: min(configuration.relayBudgetBytes, RelayBudget.floor))
        // Read here, off the actor: the first read opens a file in /proc.
        _ = KernelIdentity.bootID
    }

    deinit {
        pool.shutdown()
        verifyPool.shutdown()
        lookupThread.shutdown()
    }

    /// Malformed or unexpected messages received and dropped.
    public var malformedMessages: Int { core.malformedMessages }
    /// Results dropped because their item was already done or their job had ended.
    public var lateResults: Int { core.lateResults }
    /// Number of connected workers.
    public var workerCount: Int { core.workers.count }

    // MARK: - Events

    /// Hands `event` to the core at the current time and carries out what it decided.
    func handle(_ event: CoordinatorEvent) {
        core.handle(event, at: .current())
        performEffects()
    }

    /// Carries out the core's effects, in the order it decided them.
    private func performEffects() {
        let outbox = lifecycle.outbox
        var filled: Set<Stage> = []
        for effect in core.takeEffects() {
            switch effect {
            case .jobEvent(let event, let job):
                jobEvents[job]?.yield(event)
            case .endJobEvents(let job):
                jobEvents.removeValue(forKey: job)?.finish()
            case .removeWorkspace(let workspace):
                // Only while no writer runs (before `run`): nothing else uses the folder.
                workspace.remove()
            case .registration(let peer, let registered):
                registeredPeers.set(peer, registered: registered)
            default:
                if let stage = outbox?.perform(effect) { filled.insert(stage) }
            }
        }
        // Holding a stage back decides nothing else, so this adds no effects.
        for stage in filled { core.handle(.stageFull(stage), at: .current()) }
    }

    // MARK: - Lifecycle

    /// The coordinator runs: effects go to `outbox`.
    func started(_ outbox: CoordinatorOutbox) {
        lifecycle = .running(outbox)
        core.start(writers: outbox.writers.count)
    }

    /// Every job ends now (a running one fails for `reason`); the tasks' streams end once the
    /// effects of that are out, so the writers still discard the jobs' temporaries.
    func stop(reason: String) {
        shutdownSignal.request()  // also ends a scan in progress
        core.advance(to: .current())
        core.stop(reason: reason)
        performEffects()
        if case .running(let outbox) = lifecycle {
            outbox.finish()
            lifecycle = .stopping(outbox)
        }
    }

    /// The journal's history, as `run` starts.
    func restore(nextJobID next: JobID, history: [JobStatus]) {
        core.restore(nextJobID: next, history: history)
    }

    /// `run` is over: the workspaces of jobs that ended before a writer removed them.
    func stopped() -> [JobWorkspace] {
        lifecycle = .stopped
        defer { core.leftWorkspaces.removeAll() }
        return core.leftWorkspaces
    }

    // MARK: - Jobs

    /// Validates and scans `request`, then starts it. The stream carries the job's events and
    /// ends after `.finished`.
    public func submit(_ request: JobRequest) async throws -> (JobAccepted, AsyncStream<JobEvent>) {
        try await submit(request, owner: nil, client: PeerID([]), principal: "this process")
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
        return try await submit(request, owner: nil, client: PeerID([]), principal: "the journal", resuming: record, followed: true)
    }

    /// `submit` for a job whose client (`owner`) must stay alive while it runs. `client` is the
    /// submitter's routing id, whatever it follows: jobs take turns by client first; its place
    /// among the jobs admitted at once is counted under `principal` (`JobAdmission`). A job
    /// `resuming` a journal's keeps no events unless `followed`: no submitter reads them.
    func submit(
        _ request: JobRequest, owner: PeerID?, client: PeerID, principal: String, resuming: JournalJob? = nil, followed: Bool = false
    ) async throws -> (JobAccepted, AsyncStream<JobEvent>) {
        guard !core.stopping && !shutdownSignal.requested else { throw CoordinatorError("coordinator is shutting down") }
        try JobRequestRules.checkFields(of: request)
        // A place first, before any work: a refused flood costs a check each.
        if let refusal = core.admission.admit(principal, force: resuming != nil) { throw CoordinatorError(refusal) }
        var started = false
        defer { if !started { core.admission.release(principal) } }
        let blockSize = request.blockSize ?? configuration.blockSize
        let batchFiles = configuration.scanBatchFiles
        guard (4096...ProtocolLimits.maxBlockSize).contains(blockSize) else {
            throw CoordinatorError("blockSize \(blockSize): must be between 4 KiB and \(ProtocolLimits.maxBlockSize >> 20) MiB")
        }
        let setting = try JobRequestRules.setting(for: request)
        if !core.workers.isEmpty, !core.scheduler.canRun(setting.engine) {
            throw CoordinatorError("no worker can compress with \(setting.engine.rawValue): the workers have \(core.workers.engineSummary)")
        }
        let (root, journal) = (configuration.root, configuration.journal)
        // Workers scan in slices what they can only when bundles are batches.
        let sliced = configuration.workerScans && configuration.workerBatches && !request.isArchive
        let prepared: PreparedJob
        var earlier: EarlierOutputs?
        var publishedBefore = 0
        do {
            (prepared, earlier, publishedBefore) = try await pool.run {
                var earlier: EarlierOutputs?, count = 0
                if let resuming, let journal {
                    count = try journal.publishedCount(of: resuming.id)
                    // Nothing to look up for a job that had published nothing.
                    if count > 0 { earlier = EarlierOutputs(journal: journal, job: JobID(resuming.id)) }
                }
                return (try JobPreparer.prepare(
                    request, blockSize: blockSize, batchFiles: batchFiles, root: root, earlier: earlier, sliced: sliced), earlier, count)
            }
        } catch _ where shutdownSignal.requested {
            throw CoordinatorError("coordinator is shutting down")
        } catch let error as CoordinatorError {
            throw error
        } catch {
            throw CoordinatorError("\(request.source): \(error)")
        }
        // The scan ran off the actor; the coordinator may have begun shutting down meanwhile.
        guard !core.stopping && !shutdownSignal.requested else {
            prepared.workspace.remove()
            throw CoordinatorError("coordinator is shutting down")
        }
        let id = core.takeJobID(resuming: resuming.map { JobID($0.id) })
        let submittedAt = resuming?.createdAt ?? EventTime.current().wall
        if let journal, resuming == nil {
            let record = JournalJob(
                id: id.value, request: (try? JSONEncoder().encode(request)) ?? Data(), source: prepared.sourceDisplay,
                destination: prepared.outputDisplay, state: .running, submittedBy: request.submitter ?? "unknown", createdAt: submittedAt)
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
        let time = EventTime.current()
        var job = JobRecord(
            id: id, request: request, setting: setting, prepared: prepared,
            planner: Planner(blockSize: blockSize, itemBytes: configuration.itemBytes, batches: configuration.workerBatches && prepared.archive == nil),
            earlier: earlier, owner: owner,
            at: time.instant, submittedAt: submittedAt)
        job.admittedAs = principal
        started = true
        jobEvents[id] = JobEventSink(sink)
        core.advance(to: time)
        core.start(job, client: client, first: prepared.firstBatch, resumedWith: resuming == nil ? nil : publishedBefore)
        performEffects()
        return (JobAccepted(jobID: id.value, destination: prepared.outputDisplay), events)
    }

    /// Cancels a running job: its items are dropped everywhere and its temporaries removed. It
    /// ends as `state`: cancelled, or failed when it cannot go on (its journal failed).
    public func cancel(job id: UInt64, reason: String = "cancelled", as state: JobState = .cancelled) {
        handle(.cancel(JobID(id), reason: reason, as: state))
    }

    /// Cancels every running job (Ctrl-C on `compress`).
    public func cancelAll(reason: String) {
        for id in core.jobOrder { cancel(job: id.value, reason: reason) }
    }

    /// Workers and jobs, for `status`.
    public func status() -> ClusterStatus {
        core.status(at: .current(), cpuSeconds: ProcessCPU.seconds())
    }

    /// A stream of job `request.jobID`'s events for client `peer` (see `CoordinatorCore.attach`).
    func attach(_ request: AttachRequest, client peer: PeerID) throws -> (JobAccepted, AsyncStream<JobEvent>) {
        core.advance(to: .current())
        let (events, stream) = AsyncStream.makeStream(of: JobEvent.self)
        switch try core.attach(request, client: peer) {
        case .already(let accepted):
            stream.finish()
            return (accepted, events)
        case .following(let accepted, let first):
            for event in first { stream.yield(event) }
            jobEvents[JobID(accepted.jobID)]?.attach(stream)
            return (accepted, events)
        case .ended(let accepted, let summary):
            stream.yield(.finished(summary))
            stream.finish()
            return (accepted, events)
        }
    }

    /// Whether client `peer` follows job `job`, which still runs.
    func follows(_ job: JobID, _ peer: PeerID) -> Bool {
        core.follows(job, peer)
    }

    /// A client submission or attachment is being served (`opened`) or is done.
    func submission(opened: Bool) {
        openSubmissions += opened ? 1 : -1
    }
}

import Foundation
import Logging
import SqueezeIO
import SqueezeProtocol

/// What the coordinator knows and decides: jobs, workers, the schedule, the checks. A value.
///
/// Every input comes in as an event with its time (`handle(_:at:)`, or one of the few
/// operations the actor's public API needs, each also given the time); the core never reads a
/// clock, never touches a socket, a stream or a continuation. What it decides to do collects
/// in its outbox as `CoordinatorEffect`s, which the actor takes and carries out, in order.
/// The smaller state machines it is made of (`JobPhase`, `WorkerRoster`, `Scheduler`,
/// `Planner`, `Placement`, `VerificationBook`, `OutgoingChecks`, `Quarantine`) are values too.
struct CoordinatorCore {
    /// The configuration.
    let configuration: CoordinatorConfiguration
    /// Where decisions worth telling an operator are logged.
    let logger: Logger
    /// What the coordinator counts for Prometheus.
    let metrics: CoordinatorMetrics
    /// The time of the event being handled.
    var now: ContinuousClock.Instant
    /// The same instant on the monotonic clock, in microseconds (for traces).
    var micros: Int64
    /// The same instant on the wall clock (for the journal).
    var wall: Date
    /// Effects decided and not yet taken by the actor.
    var outbox: [CoordinatorEffect] = []
    /// Writer partitions; zero until the coordinator runs.
    var writers = 0
    /// Whether the coordinator runs its readers, scanner and checkers.
    var started = false
    /// Whether it is stopping: nothing more is dispatched.
    var stopping = false

    /// The registered workers: liveness, throughput, and how each gets at each job's files.
    var workers: WorkerRoster
    /// The running jobs (and those ending), by id.
    var jobs: [JobID: JobRecord] = [:]
    /// How many jobs it takes at once, in all and per client.
    var admission: JobAdmission
    /// What workers' probes said of source roots lately.
    var storageSeen = StorageMemory()
    /// The running jobs' ids, oldest first.
    var jobOrder: [JobID] = []
    /// Who gets which item: credit, windows, requeues, deadlines and which answers count.
    var scheduler: Scheduler
    /// The id the next new job gets.
    var nextJobID: JobID = 1
    /// Numbers each by-reference dispatch; pieces carry it in their names (fencing).
    var nextAttempt: AttemptID = 1
    /// Which stages' queues are full, and so what is held back.
    var pressure = StagePressure()
    /// Ended jobs in the history, newest first (as `status` lists them).
    var finishedJobs: [JobStatus] = []
    /// How recently ended jobs ended, for a client that attaches after the fact (newest first).
    var endedJobs: [(accepted: JobAccepted, summary: JobSummary)] = []
    /// When each client was last heard from; judges the liveness of the jobs it follows.
    var clientsHeard: [PeerID: ContinuousClock.Instant] = [:]
    /// Malformed or unexpected messages received and dropped.
    var malformedMessages = 0 {
        didSet { metrics.malformedMessages.increment(by: max(0, malformedMessages - oldValue)) }
    }
    /// Batches published whole, and batches expanded into bundles, since start (for `status`).
    var batchesPublished = 0
    var batchesExpanded = 0
    /// Results dropped because their item was already done or their job had ended.
    var lateResults = 0 {
        didSet { metrics.lateResults.increment(by: max(0, lateResults - oldValue)) }
    }
    /// Traces of the jobs that asked for one (`JobRequest.trace`).
    var traces: [JobID: JobTrace] = [:]
    /// How each worker's clock maps onto this one's, for traces.
    var clocks = ClockOffsets()
    /// Warnings a peer can repeat at will are logged at most once per interval each.
    var warnings = WarningThrottle(interval: CoordinatorCore.warningInterval)
    /// Workspaces of jobs ended by shutdown before a writer could remove them.
    var leftWorkspaces: [JobWorkspace] = []
    /// The result check's state: sources kept for it, strikes, quarantine.
    var verification = VerificationBook()
    /// Writer partitions sent a command since the last tick's flush.
    var writersToFlush: Set<Int> = []
    /// Grants' journal records, one transaction at a time.
    var grantRecords = GrantRecords()
    /// Where the audit's draws come from (`VerifierAudit`): the system's generator, or a
    /// test's, so the core's choices are made from its inputs alone.
    var rolls: any RandomNumberGenerator & Sendable

    /// A core with nothing to do yet, at `time`.
    init(
        configuration: CoordinatorConfiguration, logger: Logger, metrics: CoordinatorMetrics, at time: EventTime,
        rolls: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.rolls = rolls
        self.logger = logger
        self.metrics = metrics
        now = time.instant
        micros = time.micros
        wall = time.wall
        workers = WorkerRoster(heartbeatInterval: configuration.heartbeatInterval, liveness: configuration.liveness)
        scheduler = Scheduler(deadline: ItemDeadline(floor: configuration.itemDeadline, factor: 10),
                              relayBudget: UInt64(configuration.relayBudgetBytes))
        verification.audit = VerifierAudit(interval: configuration.auditInterval)
        admission = JobAdmission(maxJobs: configuration.maxJobs, maxJobsPerClient: configuration.maxJobsPerClient)
    }

    /// Takes `event` at `time`; its effects wait in the outbox.
    mutating func handle(_ event: CoordinatorEvent, at time: EventTime) {
        advance(to: time)
        switch event {
        case .workerMessage(let message, let peer, let origin):
            if case .workerReady = message { identify(peer, origin: origin) }
            receive(message, from: peer)
        case .malformed(let error, let peer):
            countMalformed(error, from: peer)
        case .malformedHello(let error, let peer):
            countMalformed(error, from: peer)
            refuseHello(error, to: peer)
        case .dropped(let message, let peer):
            dropped(message, from: peer)
        case .peerProcess(let peer, let process):
            verification.origins[peer]?.process = process
            workers.setProcess(process, of: peer)
            logger.debug("worker's local process", metadata: ["worker": "\(workerName(peer))", "pid": "\(process.map(String.init) ?? "unknown")"])
        case .workerSendFailed(let peer, let error):
            sendFailed(to: peer, error: error)
        case .tick:
            tick()
        case .grantsRecorded(let keys, let failure):
            grantsRecorded(keys, failure: failure)
        case .scanned(let id, let batch):
            scanned(id, batch: batch)
        case .read(let dispatch, let sources):
            if dispatch.verify { recordSources(ItemKey(job: dispatch.job, item: dispatch.item), sources) }
        case .readFailed(let dispatch, let failures):
            readFailed(dispatch, failures: failures)
        case .readTimed(let dispatch, let start, let end):
            traces[dispatch.job]?.read(dispatch.item, for: dispatch.routingID, from: start, to: end)
        case .written(let outcomes):
            writerReported(outcomes)
        case .writerDiscarded(let id):
            discarded(id)
        case .workspaceRemoved(let id):
            workspaceRemoved(id)
        case .answerChecked(let request, let defect):
            checked(request, defect: defect)
        case .batchChecked(let check, let defect):
            batchChecked(check, defect: defect)
        case .segmentChecked(let check, let finding):
            segmentChecked(check, finding: finding)
        case .outputsRechecked(let id, let outcome):
            outputsRechecked(id, outcome)
        case .storageConfirmed(let confirmation, let failure):
            storageConfirmed(confirmation, failure: failure)
        case .cancel(let id, let reason, let state):
            cancel(job: id, reason: reason, as: state)
        case .clientHeard(let peer):
            clientsHeard[peer] = now
        case .clientSendFailed(let peer, let error):
            clientSendFailed(to: peer, error: error)
        case .stageFull(let stage):
            _ = pressure.report(stage, full: true)
        case .stageDrained(let stage):
            guard pressure.report(stage, full: false) else { return }
            if stage == .scan { for id in jobOrder { continueScan(id) } }
            pump()
        }
    }

    /// Sets the time of what comes next; time never runs backwards here.
    mutating func advance(to time: EventTime) {
        if time.instant > now { now = time.instant }
        if time.micros > micros { micros = time.micros }
        if time.wall > wall { wall = time.wall }
    }

    /// Takes the effects decided so far, leaving the outbox empty.
    mutating func takeEffects() -> [CoordinatorEffect] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    /// The coordinator runs, with `writers` writer partitions: dispatch, scans and checks go on.
    mutating func start(writers: Int) {
        self.writers = writers
        started = true
    }

    /// The coordinator stops: nothing more is dispatched, and every job ends now (a running
    /// one fails for `reason`).
    mutating func stop(reason: String) {
        stopping = true
        for id in jobOrder {
            // A cancelled job still waiting for its writers ends now, as cancelled; the
            // writers drain their commands (its discard among them) before `run` returns.
            if jobs[id]?.phase.isRunning == true { jobs[id]?.message = reason }
            perform(jobs[id]?.phase.stop() ?? [], job: id)
        }
    }

    /// The journal's history, as the coordinator starts: ids go on from `nextJobID`.
    mutating func restore(nextJobID next: JobID, history: [JobStatus]) {
        nextJobID = max(nextJobID, next)
        finishedJobs = history
    }

    /// Sends `message` to worker `peer`: it needs no heartbeat for a while.
    mutating func send(_ message: WireMessage, to peer: PeerID) {
        outbox.append(.send(message, to: peer))
        workers.sent(peer, at: now)
    }

    /// Sends a `verify` item; its deflate frames are the ones the answer came in (no copy).
    mutating func sendVerify(_ request: VerifyRequest, to peer: PeerID) {
        send(.verify(request), to: peer)
    }

    /// An event for job `id`'s clients.
    mutating func emit(to id: JobID, _ event: JobEvent) {
        outbox.append(.jobEvent(event, job: id))
    }

    /// Job `id`'s skipped entries and failed files found together, as one `entriesSkipped` and
    /// one `filesFailed` (split only where one would come near a control body's limit).
    mutating func emit(to id: JobID, skipped: [EntryNote], failed: [EntryNote]) {
        for part in EventBudget.parts(skipped, bytes: EventBudget.bytes(of:)) {
            emit(to: id, .entriesSkipped(EntryNotes(entries: Array(part))))
        }
        for part in EventBudget.parts(failed, bytes: EventBudget.bytes(of:)) {
            emit(to: id, .filesFailed(EntryNotes(entries: Array(part))))
        }
    }

    /// Files published together, as one `filesDone` (split as `emit(to:skipped:failed:)` is).
    mutating func emit(to id: JobID, done: [FileDone]) {
        for part in EventBudget.parts(done, bytes: { $0.path.utf8.count }) {
            emit(to: id, .filesDone(FilesDone(files: Array(part))))
        }
    }

    /// A command for writer partition `partition` (noted for the next flush).
    mutating func write(partition: Int, _ command: WriterCommand) {
        writersToFlush.insert(partition)
        outbox.append(.write(command, partition: partition))
    }

    /// A command for the writer partition that owns file `key`'s output; none before the
    /// writers run.
    mutating func write(for key: FileKey, _ command: WriterCommand) {
        guard let partition = writerPartition(of: key) else { return }
        write(partition: partition, command)
    }

    /// The writer partition that owns file `key`'s output; nil before the writers run.
    func writerPartition(of key: FileKey) -> Int? {
        guard writers > 0 else { return nil }
        return Int((key.job.value &* 1_000_003 &+ UInt64(key.file)) % UInt64(writers))
    }
}

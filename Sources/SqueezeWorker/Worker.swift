import CoreMetrics
import Glibc
import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import NIOConcurrencyHelpers
import SqueezeZMQ

/// A worker: connects a DEALER to the coordinator, announces its slots, compresses items in a
/// task group bounded by those slots and streams each result back as soon as it is done.
/// It reconnects with backoff whenever the coordinator goes silent, and never exits for that;
/// its items outlive the connection (`HeldWork`), so a reconnect loses no work that was fine.
public final class Worker: Sendable {
    /// What the session's tasks share, behind `state`'s lock.
    struct State {
        var draining = false
        var busy = 0
        var cancelledJobs: Set<UInt64> = []
        var lastHeard = ContinuousClock.now
        var itemsDone = 0
        var malformed = 0
        /// Stop compressing mid-item: the drain grace ran out or the worker was cancelled.
        var abandon = false
        /// Welcomed by the coordinator in the current session: answers leave at once; until
        /// then they wait in `held` for the coordinator's `keep`.
        var registered = false
        /// How many times the coordinator has welcomed this worker: which registration is current.
        var registrations: UInt64 = 0
        /// When the `workerReady` still unanswered (no `welcome` or `error` yet) went out.
        var announcedAt: ContinuousClock.Instant?
        /// The current session's socket, nil between sessions.
        var session: ZMQEndpoint?
        /// Every item from arrival to answer, across sessions.
        var held = HeldWork()
        /// `verified` reports kept to leave with this worker's next answer, and since when.
        var heldReports: [VerifyReport] = []
        var heldSince: ContinuousClock.Instant?
        /// The coordinator's heartbeat rules, from `welcome`; the configuration's until then.
        var heartbeatInterval: Duration
        var liveness: Int
        /// The coordinator asked for `timing` and `clock` messages (while it traces some job).
        var timings = false

        /// The registration answers leave on now; nil while they wait for a `keep`.
        var registration: UInt64? { registered && session != nil ? registrations : nil }

        /// Whether an `unknownPeer` received `now` calls for announcing again. Not within a
        /// heartbeat interval of an announcement still unanswered: the coordinator sent it for
        /// a heartbeat that left before the announcement (a coordinator that was paused
        /// answers a queue of them at once), and each `workerReady` would requeue and keep this
        /// worker's items again. Past that, the announcement may be lost (a coordinator that
        /// restarted): it goes again.
        func announcesAgain(now: ContinuousClock.Instant) -> Bool {
            guard let announcedAt else { return true }
            return now - announcedAt >= heartbeatInterval
        }
    }

    /// The configuration.
    public let configuration: WorkerConfiguration
    private let context: ZMQContext
    let logger: Logger
    let state: NIOLockedValueBox<State>
    /// Threads the worker owns for zlib, one per slot. Compression runs there rather than on
    /// the cooperative pool, so a busy slot never holds up the coordinator's tasks in the same
    /// process (embedded mode) or this worker's own receiver and heartbeat.
    let compressionPool: BlockingIOPool
    /// A thread for stitching and discards, so neither waits behind a slot's compression.
    private let ioPool = BlockingIOPool(threads: 1, name: "squeeze-worker-io")
    /// A thread for storage probes: a probe never waits behind a 64 MiB stitch segment, nor
    /// holds up the messages that come after it.
    private let probePool = BlockingIOPool(threads: 1, name: "squeeze-worker-probe")
    /// A thread for `verify` items, so a check (which holds another worker's output back)
    /// never waits behind this worker's own compression.
    private let verifyPool = BlockingIOPool(threads: 1, name: "squeeze-worker-verify")
    /// What the worker counts for Prometheus.
    let metrics: WorkerMetrics

    /// A worker using `context` for its socket.
    public init(configuration: WorkerConfiguration, context: ZMQContext, logger: Logger = Logger(label: "squeeze.worker")) {
        self.configuration = configuration
        self.context = context
        state = NIOLockedValueBox(State(heartbeatInterval: configuration.heartbeatInterval, liveness: configuration.liveness))
        compressionPool = BlockingIOPool(threads: configuration.slots, name: "squeeze-zlib")
        metrics = WorkerMetrics(factory: configuration.metricsFactory ?? NOOPMetricsHandler.instance)
        metrics.slots.record(configuration.slots)
        metrics.connected.record(0)
        metrics.busySlots.set(0)
        var logger = logger
        logger[metadataKey: "worker"] = "\(configuration.workerID)"
        self.logger = logger
    }

    deinit {
        compressionPool.shutdown()
        ioPool.shutdown()
        probePool.shutdown()
        verifyPool.shutdown()
    }

    /// Probes waiting for the probe thread; one more is refused at once (the coordinator then
    /// sends that job's items in messages), so a flood of jobs cannot grow the queue.
    static let probeQueueLimit = 256

    /// Items finished since start.
    public var itemsDone: Int { state.withLockedValue { $0.itemsDone } }

    /// Malformed messages received and dropped since start.
    public var malformedMessages: Int { state.withLockedValue { $0.malformed } }

    /// Asks the worker to stop taking work, finish what it holds (within the drain grace),
    /// say goodbye and return from `run`.
    public func drain() {
        state.withLockedValue { $0.draining = true }
    }

    /// Runs until cancelled or drained, reconnecting with backoff when the coordinator is lost.
    public func run() async {
        // The item queue and the slots outlive each connection: a reconnect does not stop them.
        let (queue, queueSink) = AsyncStream.makeStream(of: ReceivedTask.self, bufferingPolicy: .bufferingOldest(Self.queueLimit(slots: configuration.slots)))
        await withTaskGroup(of: Void.self) { group in
            if let health = configuration.healthEndpoint {
                let server = WorkerHealthServer(address: health, context: context, logger: logger) { self.healthReply() }
                group.addTask { await server.run() }
            }
            group.addTask { await self.runSlots(queue) }
            await connectLoop(queue: queueSink)
            if Task.isCancelled { state.withLockedValue { $0.abandon = true } }
            queueSink.finish()
            group.cancelAll()
        }
    }

    private func connectLoop(queue: AsyncStream<ReceivedTask>.Continuation) async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let endpoint = try await ZMQEndpoint.start(context: context, configuration: endpointConfiguration())
                let end = await session(on: endpoint, queue: queue)
                await endpoint.shutdown()
                if end == .stopped { return }
                logger.warning("coordinator silent; reconnecting", metadata: ["coordinator": "\(configuration.coordinator)"])
                backoff = .milliseconds(100)
            } catch {
                logger.error("cannot connect: \(error)", metadata: ["coordinator": "\(configuration.coordinator)"])
            }
            if state.withLockedValue({ $0.draining }) { return }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
    }

    private func endpointConfiguration() -> ZMQEndpointConfiguration {
        ZMQEndpointConfiguration(
            name: "worker",
            type: .dealer,
            options: [
                .routingID(Array(configuration.workerID.utf8)),
                .maxMessageSize(ProtocolLimits.maxFrameSize),
                .sendHighWaterMark(10_000),
                .receiveHighWaterMark(10_000),
                .reconnectInterval(100),
                .reconnectIntervalMax(2_000),
                // Results finished after the coordinator fell silent still get a chance to leave.
                .linger(1_000),
            ] + (configuration.curve?.socketOptions ?? []),
            connect: [configuration.coordinator],
            receiveLimit: ProtocolReceiveLimits.worker
        )
    }

    /// The announcement, naming the items still held; answers wait from now until the
    /// coordinator's `welcome` says which of them it still wants.
    private func hello() -> ZMQMessage {
        let holding = state.withLockedValue { state in
            state.registered = false
            state.announcedAt = .now
            return state.held.holding
        }
        return ZMQMessage(WireCodec.encode(.workerReady(WorkerHello(
            workerID: configuration.workerID, host: configuration.host,
            slots: configuration.slots, pid: getpid(),
            engines: configuration.engines.map(\.rawValue),
            storage: configuration.storage, bootID: KernelIdentity.bootID,
            capabilities: capabilities,
            holding: holding))))
    }

    /// What it announces beyond compressing.
    private var capabilities: [String]? {
        var names: [String] = []
        if configuration.verifies { names += [WorkerHello.verifyCapability, WorkerHello.verifyRangeCapability] }
        if configuration.publishes && configuration.storage != .remote { names.append(WorkerHello.publishCapability) }
        if configuration.storage != .remote {
            names += [WorkerHello.segmentsCapability, WorkerHello.batchesCapability, WorkerHello.offsetTableCapability, WorkerHello.scansCapability,
                      WorkerHello.wholeFilesCapability]
            if configuration.verifies { names += [WorkerHello.listingsCapability, WorkerHello.batchListingsCapability] }
        }
        return names.isEmpty ? nil : names
    }

    /// One connection's life: receiver, heartbeat, storage, probe and verify tasks in one task
    /// group; the items it receives go to the worker's queue, which outlives it.
    private func session(on endpoint: ZMQEndpoint, queue queueSink: AsyncStream<ReceivedTask>.Continuation) async -> WorkerSessionEnd {
        state.withLockedValue { state in
            state.lastHeard = .now
            state.cancelledJobs.removeAll()
            state.abandon = false
            state.session = endpoint
            state.heldReports = []
            state.heldSince = nil
        }
        endpoint.send(hello())
        let (storageTasks, storageSink) = AsyncStream.makeStream(of: StorageTask.self)
        let (verifyItems, verifySink) = AsyncStream.makeStream(of: VerifyTask.self)
        let (probes, probeSink) = AsyncStream.makeStream(of: StorageProbe.self, bufferingPolicy: .bufferingOldest(Self.probeQueueLimit))
        let end = await withTaskGroup(of: WorkerSessionEnd?.self) { group in
            group.addTask { await self.receive(from: endpoint, into: queueSink, storage: storageSink, probes: probeSink, verify: verifySink) }
            group.addTask { await self.runStorageTasks(storageTasks, replyingOn: endpoint) }
            group.addTask { await self.runProbes(probes, replyingOn: endpoint) }
            group.addTask { await self.runVerifyItems(verifyItems, replyingOn: endpoint) }
            group.addTask { await self.heartbeat(on: endpoint) }
            var end = WorkerSessionEnd.stopped
            for await result in group {
                if let result {
                    end = result
                    break
                }
            }
            // The slots go on; their answers wait for the next session's `keep`. A cancelled
            // worker stops them mid-item.
            state.withLockedValue { state in
                state.registered = false
                state.session = nil
                if Task.isCancelled { state.abandon = true }
            }
            storageSink.finish()
            probeSink.finish()
            metrics.connected.record(0)
            verifySink.finish()
            group.cancelAll()
            return end
        }
        // Queued before shutdown, so it leaves within the socket's linger.
        if end == .stopped { endpoint.send(ZMQMessage(WireCodec.encode(.goodbye))) }
        return end
    }

    private func receive(from endpoint: ZMQEndpoint, into queue: AsyncStream<ReceivedTask>.Continuation,
        storage: AsyncStream<StorageTask>.Continuation, probes: AsyncStream<StorageProbe>.Continuation,
        verify: AsyncStream<VerifyTask>.Continuation
    ) async -> WorkerSessionEnd? {
        for await event in endpoint.events {
            if case .dropped(let dropped) = event {
                // Past its bound, read and let go: the coordinator is alive, but sent something wrong.
                state.withLockedValue { $0.lastHeard = .now }
                let read = DroppedMessage(dropped, routed: false)
                countMalformed(read.defect ?? ProtocolError.malformed("unexpected \(read.header.map { "\($0.type)" } ?? "message") from coordinator"))
                continue
            }
            guard case .message(let message) = event else {
                if case .sendFailed(_, let error) = event { logger.warning("send failed: \(error)") }
                continue
            }
            state.withLockedValue { $0.lastHeard = .now }
            let envelope: WireEnvelope
            do {
                envelope = try WireCodec.decode(message.frames)
            } catch {
                countMalformed(error)
                continue
            }
            switch envelope.message {
            case .work(let item):
                enqueue(.payload(item), into: queue, replyingOn: endpoint)
            case .workRef(let item):
                enqueue(.reference(item), into: queue, replyingOn: endpoint)
            case .batch(let batch) where configuration.storage != .remote:
                enqueue(.reference(batch.reference), into: queue, replyingOn: endpoint)
            case .scan(let scan) where configuration.storage != .remote:
                enqueue(.scan(scan), into: queue, replyingOn: endpoint)
            case .verifyBatch(let check) where configuration.verifies:
                verify.yield(.blocks(check.request, listing: configuration.storage != .remote ? check.listing : nil))
            case .checkListing(let check) where configuration.verifies && configuration.storage != .remote:
                verify.yield(.listing(check))
            case .stitch(let request):
                storage.yield(.stitch(request))
            case .discard(let request):
                storage.yield(.discard(request))
            case .publish(let grant):
                storage.yield(.publish(grant))
            case .verify(let request) where configuration.verifies:
                verify.yield(.blocks(request))
            case .probe(let probe) where configuration.storage == .remote:
                let reply = ProbeReply(jobID: probe.jobID, shared: false, reason: "the worker runs with --storage remote")
                endpoint.send(ZMQMessage(WireCodec.encode(.probeReply(reply))))
            case .probe(let probe):
                // Answered on the probe thread; the next message is read meanwhile.
                if case .dropped = probes.yield(probe) {
                    let reply = ProbeReply(jobID: probe.jobID, shared: false, reason: "more than \(Self.probeQueueLimit) probes waiting")
                    endpoint.send(ZMQMessage(WireCodec.encode(.probeReply(reply))))
                }
            case .cancelJob(let job):
                state.withLockedValue { _ = $0.cancelledJobs.insert(job) }
            case .unknownPeer:
                guard state.withLockedValue({ $0.announcesAgain(now: .now) }) else {
                    logger.debug("coordinator does not know this worker; its announcement is on the way")
                    continue
                }
                logger.info("coordinator does not know this worker; announcing again")
                // A restarted coordinator resumes journaled jobs under their old ids: a job
                // cancelled before the restart may be running again.
                state.withLockedValue { $0.cancelledJobs.removeAll() }
                endpoint.send(hello())
            case .welcome(let welcome):
                // Rules out of range are not adopted (they would overflow the liveness
                // arithmetic): the worker keeps its own.
                let defect = welcome.defect
                let (kept, answers) = state.withLockedValue { state in
                    if defect == nil {
                        state.heartbeatInterval = .milliseconds(welcome.heartbeatMilliseconds)
                        state.liveness = welcome.liveness
                    }
                    state.timings = welcome.timings == true
                    state.registered = true
                    state.registrations += 1
                    state.announcedAt = nil
                    let answers = state.held.keep(welcome.keep)
                    return (state.held.count, answers)
                }
                for answer in answers { endpoint.send(ZMQMessage(WireCodec.encode(answer))) }
                if kept + answers.count > 0 {
                    logger.info("kept items held from before", metadata: ["answered": "\(answers.count)", "unfinished": "\(kept)"])
                }
                if let defect { logger.warning("welcome with heartbeat rules out of range; keeping this worker's own: \(defect)") }
                if welcome.timings == true { sendClock(on: endpoint) }
                metrics.connected.record(1)
                logger.info("registered", metadata: ["heartbeat-ms": "\(welcome.heartbeatMilliseconds)", "liveness": "\(welcome.liveness)"])
            case .error(let reply):
                // The coordinator refused this worker (its workerReady): say why, in one line.
                // The next `unknownPeer` announces it again (the id may be free by then).
                state.withLockedValue { $0.announcedAt = nil }
                logger.error("coordinator refused this worker: \(String(reply.message.prefix(300)).debugDescription)")
            case .timings(let on):
                state.withLockedValue { $0.timings = on }
                // A first sample at once: the coordinator maps this worker's times from the start.
                if on { sendClock(on: endpoint) }
            case .heartbeat:
                break
            default:
                logger.warning("unexpected \(envelope.message.type) from coordinator; dropped")
            }
        }
        return nil
    }

    /// Counts a message from the coordinator that was dropped, and logs why.
    private func countMalformed(_ error: any Error) {
        let count = state.withLockedValue { state in
            state.malformed += 1
            return state.malformed
        }
        metrics.malformedMessages.increment()
        logger.warning("dropped malformed message: \(error)", metadata: ["malformed": "\(count)"])
    }

    /// Queues an item for the slots; one over the queue's bound is failed at once, so a
    /// coordinator that gives more than it may gets it back to send elsewhere.
    private func enqueue(_ item: WorkerTask, into queue: AsyncStream<ReceivedTask>.Continuation, replyingOn endpoint: ZMQEndpoint) {
        let key = HeldWork.Key(job: item.jobID, item: item.itemID)
        let arrival = state.withLockedValue { $0.held.receive(key) }
        guard case .dropped = queue.yield(ReceivedTask(item, arrival: arrival)) else { return }
        state.withLockedValue { $0.held.drop(key, arrival: arrival) }
        logger.warning("item queue full; item refused", metadata: ["job": "\(item.jobID)", "item": "\(item.itemID)"])
        endpoint.send(ZMQMessage(WireCodec.encode(.itemFailed(ItemFailure(
            jobID: item.jobID, itemID: item.itemID, reason: "the worker's queue is full (\(Self.queueLimit(slots: configuration.slots)) items)")))))
    }

    /// Items a session holds queued beyond those its slots compress: the most credit a
    /// coordinator gives a slot (64) for each. One more is answered `itemFailed` at once.
    static func queueLimit(slots: Int) -> Int { slots * 64 }

    /// Joins files' pieces and removes adopted ones, one task at a time on the I/O thread.
    private func runStorageTasks(_ tasks: AsyncStream<StorageTask>, replyingOn endpoint: ZMQEndpoint) async -> WorkerSessionEnd? {
        let publishDelay = configuration.publishDelayForTesting?.sleepMicroseconds
        for await task in tasks {
            if state.withLockedValue({ $0.cancelledJobs.contains(task.jobID) }) { continue }
            if case .publish = task, let publishDelay {
                logger.info("delaying a publish (test)")
                _ = try? await ioPool.run { usleep(publishDelay) }
            }
            let answer = (try? await ioPool.run { task.perform() }) ?? task.stopped
            if case .published(let report) = answer, let first = report.failures.first {
                logger.warning("could not publish some outputs", metadata: [
                    "job": "\(report.jobID)", "item": "\(report.itemID)", "members": "\(report.failures.count)",
                    "reason": "\(String(first.reason.prefix(200)).debugDescription)",
                ])
            }
            endpoint.send(ZMQMessage(WireCodec.encode(answer)))
        }
        return nil
    }

    /// Answers storage probes one at a time on the probe thread.
    private func runProbes(_ probes: AsyncStream<StorageProbe>, replyingOn endpoint: ZMQEndpoint) async -> WorkerSessionEnd? {
        let delay = configuration.probeDelayForTesting?.sleepMicroseconds
        for await probe in probes {
            let reply = (try? await probePool.run {
                if let delay { usleep(delay) }
                return StorageCheck.answer(probe)
            })
                ?? ProbeReply(jobID: probe.jobID, shared: false, reason: "worker stopping")
            endpoint.send(ZMQMessage(WireCodec.encode(.probeReply(reply))))
        }
        return nil
    }

    /// Answers `verify` items and listing checks one at a time on the verify thread. A
    /// cancelled job's are dropped (the coordinator forgot the check); a stopping pool drops
    /// the rest with the session.
    private func runVerifyItems(_ items: AsyncStream<VerifyTask>, replyingOn endpoint: ZMQEndpoint) async -> WorkerSessionEnd? {
        for await task in items {
            if state.withLockedValue({ $0.cancelledJobs.contains(task.jobID) }) { continue }
            let request: VerifyRequest
            let listing: ListingCheck?
            switch task {
            case .blocks(let blocks, let check):
                (request, listing) = (blocks, check)
            case .listing(let check):
                // Listed as the scanner listed, nothing written: only the digest goes back.
                guard let answer = try? await verifyPool.run({ check.answer() }) else { continue }
                endpoint.send(ZMQMessage(WireCodec.encode(.listingChecked(answer))))
                continue
            }
            guard let report = try? await verifyPool.run({
                var report = VerifyRunner.run(request)
                // The batch's scan listed again, as a `checkListing`'s: its digest rides in the report.
                report.listing = listing?.answer()
                return report
            }) else { continue }
            // While a slot compresses, its answer is due soon: the report leaves with it, so
            // the coordinator takes both in one wake. Idle, it leaves now.
            let held = state.withLockedValue { state -> Bool in
                guard state.busy > 0 else { return false }
                state.heldReports.append(report)
                if state.heldSince == nil { state.heldSince = .now }
                return true
            }
            if !held {
                sendHeldReports(on: endpoint)
                endpoint.send(ZMQMessage(WireCodec.encode(.verified(report))))
            }
        }
        return nil
    }

    /// The longest a `verified` report waits for an answer to leave with: a slot's item can
    /// take seconds, and the report holds another worker's output back.
    static let reportHoldLimit: Duration = .milliseconds(200)

    /// Sends the kept `verified` reports: all of them, or, given `limit`, only when the oldest
    /// has waited that long or no slot is busy any more.
    func sendHeldReports(on endpoint: ZMQEndpoint, unlessYoungerThan limit: Duration? = nil, now: ContinuousClock.Instant = .now) {
        let reports = state.withLockedValue { state -> [VerifyReport] in
            guard let since = state.heldSince else { return [] }
            if let limit, state.busy > 0, now - since < limit { return [] }
            defer {
                state.heldReports = []
                state.heldSince = nil
            }
            return state.heldReports
        }
        for report in reports { endpoint.send(ZMQMessage(WireCodec.encode(.verified(report)))) }
    }

    // MARK: - Health

    /// This worker's answer to a health check: its status while it is registered and hearing
    /// from the coordinator, an `error` otherwise.
    private func healthReply() -> WireMessage {
        let snapshot = state.withLockedValue { $0 }
        let silent = ContinuousClock.now - snapshot.lastHeard
        guard snapshot.registered, silent <= snapshot.heartbeatInterval * snapshot.liveness else {
            return .error(ErrorReply(message: "worker \(configuration.workerID) is not registered with the coordinator at \(configuration.coordinator)"))
        }
        let (whole, fraction) = silent.components
        let worker = WorkerStatus(
            workerID: configuration.workerID, host: configuration.host, slots: configuration.slots,
            busy: snapshot.busy, megabytesPerSecond: 0,
            lastHeartbeatSeconds: Double(whole) + Double(fraction) / 1e18, itemsDone: snapshot.itemsDone)
        return .statusReply(ClusterStatus(workers: [worker], jobs: []))
    }
}

import Foundation
import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeJournal
import SqueezeProtocol
import SqueezeZMQ

/// The coordinator's run: its endpoints and the tasks that feed the core events and carry its
/// effects off the actor (readers, writers, checkers, the scanner, the journal).
extension Coordinator {
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
                    .maxMessageSize(ProtocolLimits.maxFrameSize),
                    .sendHighWaterMark(100_000),
                    .receiveHighWaterMark(100_000),
                ] + (curve?.options ?? []),
                bind: workerEndpoints,
                handshakeFailures: curve?.handshakeFailures,
                tickInterval: TickCadence.interval(heartbeat: configuration.heartbeatInterval, progress: configuration.progressInterval),
                reflex: HeartbeatReflex.answer,
                receiveLimit: ProtocolReceiveLimits.coordinatorWorkers { [registeredPeers] in registeredPeers.contains($0) }))
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
        let (dispatchQueue, dispatches) = Stage.dispatch.queue(of: Dispatch.self)
        let (checkQueue, checks) = Stage.check.queue(of: LocalCheck.self)
        let (scanQueue, scanRequests) = Stage.scan.queue(of: ScanRequest.self)
        let (journalQueue, journalCommands) = Stage.journal.queue(of: JournalCommand.self)
        let writers = (0..<max(1, configuration.ioThreads)).map { Stage.write(partition: $0).queue(of: WriterCommand.self) }
        let outbox = CoordinatorOutbox(
            endpoint: endpoint, clientEndpoint: clientEndpoint, dispatches: dispatchQueue, scans: scanQueue,
            writers: writers.map(\.0), checks: checkQueue, journal: journalQueue)
        await started(outbox)
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
            for writer in writers {
                group.addTask { await self.runWriter(writer.1) }
            }
            group.addTask { await self.runReaders(dispatches, count: max(1, self.configuration.ioThreads), endpoint: endpoint) }
            group.addTask { await self.runEvents(endpoint) }
            group.addTask { await self.runCheckers(checks, count: 2) }
            group.addTask { await self.runScanner(scanRequests) }
            group.addTask { await self.runJournal(journalCommands) }
            if let clientEndpoint {
                group.addTask { await self.serveClients(clientEndpoint) }
            }
            group.addTask {
                // Ends on `shutdown()` or when `run` is cancelled.
                await self.shutdownSignal.wait()
                await self.stop(reason: "coordinator shutting down")
                // Give each client's final `finished` event a moment (3 s at most) to leave
                // before the socket closes.
                await withTaskGroup(of: Void.self) { wait in
                    wait.addTask { try? await Task.sleep(for: .seconds(3)) }
                    wait.addTask {
                        while !Task.isCancelled, await self.openSubmissions > 0 { try? await Task.sleep(for: .milliseconds(10)) }
                    }
                    await wait.next()
                    wait.cancelAll()
                }
                await endpoint.shutdown()
                await clientEndpoint?.shutdown()
            }
        }
        await zap?.stop()
        let leftovers = await stopped()
        _ = try? await pool.run { for workspace in leftovers { workspace.remove() } }
        pool.shutdown()
        verifyPool.shutdown()
        lookupThread.shutdown()
    }

    /// Stops taking jobs and ends `run`: running jobs fail, their clients are told and their
    /// temporaries removed. For graceful shutdown (SIGTERM).
    public nonisolated func shutdown() {
        shutdownSignal.request()
    }

    /// Records job ends and grants in the journal, in order, on the I/O pool. A job end that
    /// fails is logged: the job has ended either way, and a restart would at worst resume it and
    /// find its files kept. A grant that fails is the core's to settle: its files are not published.
    private nonisolated func runJournal(_ commands: StageConsumer<JournalCommand>) async {
        await commands.consume(drained: drained) { command in
            guard let journal = configuration.journal else { return }
            switch command {
            case .ended(let id, let state, let totals, let message, let date):
                let (keep, age, logger) = (configuration.historyJobs, configuration.historyAge, logger)
                do {
                    try await pool.run {
                        try journal.updateJob(id.value, state: state, totals: totals, finishedAt: date, message: message)
                        Self.prune(journal, keeping: keep, age: age, at: date, logger: logger)
                    }
                } catch {
                    logger.error("cannot record a job's end in the journal", metadata: ["job": "\(id)", "error": "\(error)"])
                }
            case .granted(let keys, let records):
                do {
                    try await pool.run { try journal.recordPublished(records) }
                    await handle(.grantsRecorded(keys, failure: nil))
                } catch {
                    await handle(.grantsRecorded(keys, failure: "\(error)"))
                }
            }
        }
    }

    /// Tells the core that `stage` caught up.
    private nonisolated func drained(_ stage: Stage) async {
        await handle(.stageDrained(stage))
    }

    /// Drops ended jobs beyond the history's length or its age at `date` from the journal.
    /// Blocking. A failure is logged: an over-long history is no reason to stop.
    private static func prune(_ journal: Journal, keeping: Int, age: Duration?, at date: Date, logger: Logger) {
        do {
            _ = try journal.prune(keepingNewest: keeping, olderThan: age.map { date.addingTimeInterval(-$0.seconds) })
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
        let date = EventTime.current().wall
        let (next, running, history) = try await pool.run {
            Self.prune(journal, keeping: keep, age: age, at: date, logger: logger)
            return (try journal.nextJobID(), takeUp ? try journal.runningJobs() : [], try journal.recentJobs(limit: keep))
        }
        restore(nextJobID: JobID(next), history: history.filter { $0.state != .running }.map(JobStatus.init(journaled:)))
        for record in running {
            do {
                let request = try JSONDecoder().decode(JobRequest.self, from: record.request)
                _ = try await submit(request, owner: nil, client: PeerID([]), principal: "the journal", resuming: record)
            } catch {
                let reason = "could not be resumed: \((error as? CoordinatorError)?.message ?? "\(error)")"
                logger.error("job \(reason)", metadata: ["job": "\(record.id)", "source": "\(record.source)"])
                try? await pool.run {
                    try journal.updateJob(record.id, state: .failed, totals: record.totals, finishedAt: date, message: reason)
                }
            }
        }
    }

    /// The process at the other end of `message`'s connection when it came over loopback,
    /// looked up on its own thread at once (the descriptor is the connection's only while it
    /// lasts), or nil.
    private nonisolated func localProcess(of message: ZMQMessage) async -> Int32? {
        guard let descriptor = message.sourceDescriptor else { return nil }
        let peers = loopbackPeers
        return (try? await lookupThread.run { peers.process(ofConnection: descriptor) }) ?? nil
    }

    /// The workers' endpoint: its messages, failed sends and ticks, as events. A worker over
    /// loopback is registered at once as of an unknown process (one principal with every other
    /// loopback worker: the safe side), and its process, once the kernel names it in a child
    /// task, follows as an event: a flood of joins never waits for `/proc`.
    private nonisolated func runEvents(_ endpoint: ZMQEndpoint) async {
        await withDiscardingTaskGroup { group in
            for await event in endpoint.events { await take(event, lookups: &group) }
        }
    }

    /// One event of the workers' endpoint, as the core's event; loopback lookups go to `group`.
    private nonisolated func take(_ event: ZMQEndpointEvent, lookups group: inout DiscardingTaskGroup) async {
        switch event {
        case .message(let message):
            let routed = RoutedMessage(message)
            switch routed.envelope {
            case .success(let envelope):
                let origin = ConnectionOrigin(key: message.userID, address: message.peerAddress)
                await handle(.workerMessage(envelope.message, from: routed.peer, origin: origin))
                if case .workerReady = envelope.message, origin.isLoopback, message.sourceDescriptor != nil {
                    group.addTask {
                        // A lookup that finds nothing is tried twice more, a tenth of a
                        // second apart: the kernel's tables are read while they change.
                        var process = await self.localProcess(of: message)
                        for _ in 0..<2 where process == nil {
                            try? await Task.sleep(for: .milliseconds(100))
                            process = await self.localProcess(of: message)
                        }
                        await self.handle(.peerProcess(routed.peer, process))
                    }
                }
            case .failure(let error) where routed.type == .workerReady: await handle(.malformedHello(error, from: routed.peer))
            case .failure(let error): await handle(.malformed(error, from: routed.peer))
            }
        case .sendFailed(let message, let error):
            await handle(.workerSendFailed(PeerID(sender: message), error))
        case .tick:
            await handle(.tick)
        case .dropped(let dropped):
            await handle(.dropped(DroppedMessage(dropped, routed: true), from: PeerID(sender: dropped)))
        }
    }

    /// The one owner of the readers' queue: each dispatch for a remote worker is loaded and
    /// sent by a child task, at most `count` at once, in the order they came.
    private nonisolated func runReaders(_ dispatches: StageConsumer<Dispatch>, count: Int, endpoint: ZMQEndpoint) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            await dispatches.consume(drained: drained) { dispatch in
                if running == count, await group.next() != nil { running -= 1 }
                running += 1
                group.addTask { await self.load(dispatch, endpoint: endpoint) }
            }
        }
    }

    /// Loads a dispatch's blocks on the I/O pool and sends it, with the checks riding on it.
    private nonisolated func load(_ dispatch: Dispatch, endpoint: ZMQEndpoint) async {
        let outcome: Result<[WorkBlock], ReadFailures>
        var sources: [BlockRef: SourceBlock] = [:]
        let readStart = dispatch.traced ? EventTime.current().micros : 0
        do {
            (outcome, sources) = try await pool.run { [readBuffers, direct = configuration.directReads] in
                let outcome = DispatchReading.read(dispatch, into: readBuffers, direct: direct)
                guard dispatch.verify, case .success(let blocks) = outcome else { return (outcome, [:]) }
                return (outcome, DispatchReading.sources(of: blocks, refs: dispatch.blocks.map(\.ref)))
            }
        } catch {
            outcome = .failure(ReadFailures(files: dispatch.blocks.map { ($0.ref.file, "\(error)") }))
        }
        if dispatch.traced { await handle(.readTimed(dispatch, from: readStart, to: EventTime.current().micros)) }
        switch outcome {
        case .success(let blocks):
            // Before the `work` message leaves, so no answer can come before its sources.
            if dispatch.verify { await handle(.read(dispatch, sources: sources)) }
            let work = WorkAssignment(jobID: dispatch.job.value, itemID: dispatch.item.value, setting: dispatch.setting, blocks: blocks)
            endpoint.send(ZMQMessage([ZMQFrame(dispatch.routingID.bytes)] + WireCodec.encode(.work(work))))
        case .failure(let failures):
            await handle(.readFailed(dispatch, failures))
        }
        for check in dispatch.checks {
            endpoint.send(ZMQMessage([ZMQFrame(dispatch.routingID.bytes)] + WireCodec.encode(.verify(check))))
        }
    }

    /// Carries out one writer partition's commands, in order, and reports what came of them.
    private nonisolated func runWriter(_ commands: StageConsumer<WriterCommand>) async {
        var writer = OutputWriter(pool: pool, journal: configuration.journal, delayPerBlock: configuration.writeDelayForTesting, metrics: await core.metrics)
        await commands.consume(drained: drained) { command in
            // One trip to the actor per command, however many files it finished.
            let outcomes = await writer.handle(command)
            if !outcomes.isEmpty { await handle(.written(outcomes)) }
            if case .discardJob(let job) = command { await handle(.writerDiscarded(job)) }
            if case .removeWorkspace(let job, _) = command { await handle(.workspaceRemoved(job)) }
        }
        await writer.discardAll()
    }

    /// Reads scan batches and slices off the actor, one request at a time.
    private nonisolated func runScanner(_ requests: StageConsumer<ScanRequest>) async {
        await requests.consume(drained: drained) { request in
            let batch: PreparedBatch
            do {
                batch = try await pool.run {
                    if let slice = request.slice {
                        return try JobPreparer.nextSlice(slice, exclude: request.exclude, context: request.context, lastCreated: nil)
                    }
                    guard let walker = request.walker else { return PreparedBatch() }
                    return JobPreparer.nextBatch(of: walker, context: request.context, firstIndex: request.firstIndex, lastCreated: request.lastCreatedFolder)
                }
            } catch {
                // The pool is shutting down; so is the coordinator.
                return
            }
            await handle(.scanned(request.job, batch))
        }
    }

    /// The one owner of the checks' queue: each answer or stitched segment is checked on the
    /// verification threads by a child task, at most `count` at once.
    private nonisolated func runCheckers(_ checks: StageConsumer<LocalCheck>, count: Int) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            await checks.consume(drained: drained) { local in
                if running == count, await group.next() != nil { running -= 1 }
                running += 1
                group.addTask { await self.check(local) }
            }
        }
    }

    /// Checks one answer or stitched segment and hands the verdict to the core.
    private nonisolated func check(_ local: LocalCheck) async {
        switch local {
        case .answer(var request):
            let checks = request.checks
            // Nil: the pool stopped, so the coordinator is shutting down and the job with it.
            guard let outcome = try? await verifyPool.run({ ResultChecker.check(checks) }) else { return }
            request.recordStoredCRCs(outcome.storedCRCs)
            await handle(.answerChecked(request, outcome.defect))
        case .batch(let check):
            guard let outcome = try? await verifyPool.run({ ResultChecker.check(check.checks()) }) else { return }
            await handle(.batchChecked(check, outcome.defect))
        case .segment(let check):
            guard let finding = try? await verifyPool.run({ SegmentChecker.check(check) }) else { return }
            await handle(.segmentChecked(check, finding))
        case .outputs(let recheck):
            guard let outcome = try? await verifyPool.run({ recheck.run() }) else { return }
            await handle(.outputsRechecked(recheck.job, outcome))
        case .storage(let confirmation):
            // Two small reads: on the lookup thread, not behind the answers' checks.
            let failure: String?
            do {
                failure = try await lookupThread.run { confirmation.run() }
            } catch {
                return  // the thread stopped: so is the coordinator
            }
            await handle(.storageConfirmed(confirmation, failure: failure))
        }
    }
}

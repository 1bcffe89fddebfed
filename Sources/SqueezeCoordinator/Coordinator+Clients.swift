import Glibc
import SqueezeProtocol
import SqueezeZMQ

/// The client endpoint: `submit`, `cancel`, `statusRequest` and heartbeats from CLI clients.
extension Coordinator {
    /// The client ROUTER: mandatory routing so a vanished client is noticed, a control-sized
    /// message limit, and a linger that lets a job's last event leave at shutdown.
    static func clientEndpointConfiguration(_ addresses: [String], security: CoordinatorSecurity?) -> ZMQEndpointConfiguration {
        let curve = security?.endpointOptions(domain: "clients")
        return ZMQEndpointConfiguration(
            name: "clients",
            type: .router,
            options: [
                .routerMandatory(true),
                .maxMessageSize(Int64(ProtocolLimits.maxControlBody + 4096)),
                .sendHighWaterMark(100_000),
                .receiveHighWaterMark(10_000),
                .linger(1000),
            ] + (curve?.options ?? []),
            bind: addresses,
            handshakeFailures: curve?.handshakeFailures)
    }

    /// Serves clients until the endpoint shuts down. Each submission gets a child task that
    /// waits for the scan, replies, and then forwards the job's events to its client.
    nonisolated func serveClients(_ endpoint: ZMQEndpoint) async {
        await withDiscardingTaskGroup { group in
            for await event in endpoint.events {
                switch event {
                case .message(let message):
                    guard message.frames.count >= 2 else {
                        await countMalformed(ProtocolError.empty, from: message.frames.first.map(Array.init) ?? [])
                        continue
                    }
                    let peer = Array(message.frames[0])
                    let envelope: WireEnvelope
                    do {
                        envelope = try WireCodec.decode(message.frames.dropFirst())
                    } catch {
                        await countMalformed(error, from: peer)
                        // A request whose header is sound gets an answer, so its client never waits forever.
                        if let header = try? MessageHeader(decoding: message.frames[1]), header.type == .submit {
                            let reply = ErrorReply(message: "submit refused: \(error)")
                            endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.error(reply), correlation: header.correlation)))
                        }
                        continue
                    }
                    await clientHeard(peer)
                    switch envelope.message {
                    case .submit(let request):
                        await submissionOpened()
                        group.addTask {
                            await self.serve(request, correlation: envelope.correlation, from: peer, on: endpoint)
                            await self.submissionClosed()
                        }
                    case .attach(let request):
                        await submissionOpened()
                        group.addTask {
                            await self.serve(request, correlation: envelope.correlation, from: peer, on: endpoint)
                            await self.submissionClosed()
                        }
                    case .cancel(let id):
                        await cancel(job: id, reason: "cancelled by the client")
                    case .statusRequest:
                        let status = await status()
                        endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.statusReply(status), correlation: envelope.correlation)))
                    case .heartbeat:
                        // A heartbeat naming a job is echoed with its id only while that job
                        // runs for this client; a plain answer tells it the job is gone.
                        let job = envelope.correlation
                        let running = job != 0 ? await follows(job, peer) : false
                        let echo = running ? job : 0
                        endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.heartbeat, correlation: echo)))
                    default:
                        await countMalformed(ProtocolError.malformed("unexpected \(envelope.message.type) on the client endpoint"), from: peer)
                    }
                case .sendFailed(let message, let error):
                    await clientSendFailed(to: message.frames.first.map(Array.init) ?? [], error: error)
                case .tick:
                    break  // this endpoint has no clock; the workers' endpoint drives `tick`
                }
            }
        }
    }

    /// Starts one submitted job and forwards its events to the client until `finished`.
    private nonisolated func serve(_ request: JobRequest, correlation: UInt64, from peer: [UInt8], on endpoint: ZMQEndpoint) async {
        let follows = request.detached != true
        let accepted: JobAccepted
        let events: AsyncStream<JobEvent>
        do {
            (accepted, events) = try await submit(request, owner: follows ? peer : nil, client: peer)
        } catch {
            let reply = ErrorReply(message: (error as? CoordinatorError)?.message ?? "\(error)")
            endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.error(reply), correlation: correlation)))
            return
        }
        endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.submitted(accepted), correlation: correlation)))
        // A detached job's events are still drained, so they do not pile up in memory.
        for await event in events where follows {
            endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.jobEvent(event))))
        }
    }

    /// Attaches a client to an existing job and forwards its events until `finished`.
    private nonisolated func serve(_ request: AttachRequest, correlation: UInt64, from peer: [UInt8], on endpoint: ZMQEndpoint) async {
        let accepted: JobAccepted
        let events: AsyncStream<JobEvent>
        do {
            (accepted, events) = try await attach(request, client: peer)
        } catch {
            let reply = ErrorReply(message: (error as? CoordinatorError)?.message ?? "\(error)")
            endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.error(reply), correlation: correlation)))
            return
        }
        endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.submitted(accepted), correlation: correlation)))
        for await event in events {
            endpoint.send(ZMQMessage([ZMQFrame(peer)] + WireCodec.encode(.jobEvent(event))))
        }
    }

    /// A stream of job `request.jobID`'s events for `peer`: first where the job stands
    /// (`started` as of now and a progress snapshot), then its events as they happen. A job
    /// that already ended gets its `finished` alone. An owner takes the job over: its silence
    /// cancels the job, as its submitter's did.
    func attach(_ request: AttachRequest, client peer: [UInt8]) throws -> (JobAccepted, AsyncStream<JobEvent>) {
        let id = request.jobID
        if let milliseconds = request.heartbeatMilliseconds, !Self.clientHeartbeatRange.contains(milliseconds) {
            throw CoordinatorError("heartbeatMilliseconds \(milliseconds): must be \(Self.clientHeartbeatRange.lowerBound)-\(Self.clientHeartbeatRange.upperBound)")
        }
        let (events, stream) = AsyncStream.makeStream(of: JobEvent.self)
        if var job = jobs[id], job.state == .running {
            // A client asking again (its requests queued while the coordinator was away reach it
            // together) already gets the events once: a second stream would repeat them.
            if job.owner == peer || job.watchers.contains(peer) {
                stream.finish()
                return (JobAccepted(jobID: id, destination: job.destinationDisplay), events)
            }
            stream.yield(.started(job.startSnapshot()))
            stream.yield(.progress(job.snapshot(workers: workers.count, now: .now)))
            job.sink.attach(stream)
            if request.owner == true {
                job.owner = peer
                let interval = request.heartbeatMilliseconds.map { Duration.milliseconds($0) } ?? configuration.heartbeatInterval
                job.ownerDeadline = interval * configuration.liveness
            } else {
                job.watchers.insert(peer)
            }
            clientsHeard[peer] = .now
            jobs[id] = job
            logger.info("client attached", metadata: ["job": "\(id)", "owner": "\(request.owner == true)"])
            return (JobAccepted(jobID: id, destination: job.destinationDisplay), events)
        }
        if let ended = endedJobs.first(where: { $0.accepted.jobID == id }) {
            stream.yield(.finished(ended.summary))
            stream.finish()
            return (ended.accepted, events)
        }
        // A job being cancelled is still in the table, but its end is near and owned by its client.
        throw CoordinatorError(jobs[id] == nil ? "no job \(id) on this coordinator" : "job \(id) is ending; try again")
    }

    private func submissionOpened() {
        openSubmissions += 1
    }

    private func submissionClosed() {
        openSubmissions -= 1
    }

    private func follows(_ job: UInt64, _ peer: [UInt8]) -> Bool {
        guard let record = jobs[job] else { return false }
        // A cancelled job is still followed until its `finished`, which waits for its writers.
        return record.phase.isFollowed && (record.owner == peer || record.watchers.contains(peer))
    }

    private func clientHeard(_ peer: [UInt8]) {
        clientsHeard[peer] = .now
    }

    /// A send to a client failed: EHOSTUNREACH means it disconnected, EAGAIN that it fell so
    /// far behind that its queue is full. Either way its events are lost, so its jobs are
    /// cancelled (and it stops getting heartbeat echoes, so it gives up too).
    private func clientSendFailed(to peer: [UInt8], error: ZMQError) {
        let reason: String
        switch error.errno {
        case EHOSTUNREACH: reason = "the client disconnected"
        case EAGAIN: reason = "the client could not keep up with the job's events"
        default:
            logger.warning("send to client failed", metadata: ["error": "\(error)"])
            return
        }
        if error.errno == EHOSTUNREACH { clientsHeard.removeValue(forKey: peer) }
        for id in jobOrder where jobs[id]?.owner == peer {
            logger.warning("cancelling a job: \(reason)", metadata: ["job": "\(id)"])
            cancel(job: id, reason: reason)
        }
    }

    /// Cancels jobs whose client has been silent past its deadline, and forgets clients that
    /// follow nothing and have been quiet for a minute.
    func checkClients(now: ContinuousClock.Instant) {
        for id in jobOrder {
            guard let job = jobs[id], job.state == .running, let owner = job.owner else { continue }
            let heard = clientsHeard[owner] ?? job.started
            if now - heard > job.ownerDeadline {
                logger.warning("client silent; cancelling its job", metadata: ["job": "\(id)"])
                cancel(job: id, reason: "the client stopped responding")
            }
        }
        let following = Set(jobOrder.compactMap { jobs[$0]?.owner })
        clientsHeard = clientsHeard.filter { following.contains($0.key) || now - $0.value < .seconds(60) }
    }
}

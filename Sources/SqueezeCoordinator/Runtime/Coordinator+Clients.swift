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
            handshakeFailures: curve?.handshakeFailures,
            receiveLimit: ProtocolReceiveLimits.coordinatorClients)
    }

    /// Serves clients until the endpoint shuts down. Each submission gets a child task that
    /// waits for the scan, replies, and then forwards the job's events to its client.
    nonisolated func serveClients(_ endpoint: ZMQEndpoint) async {
        await withDiscardingTaskGroup { group in
            for await event in endpoint.events {
                switch event {
                case .message(let message):
                    let routed = RoutedMessage(message)
                    let peer = routed.peer
                    let envelope: WireEnvelope
                    switch routed.envelope {
                    case .success(let decoded):
                        envelope = decoded
                    case .failure(let error):
                        await handle(.malformed(error, from: peer))
                        if message.frames.count >= 2, let header = try? MessageHeader(decoding: message.frames[1]), header.type == .submit {
                            refuse(header, from: peer, on: endpoint, because: error)
                        }
                        continue
                    }
                    await handle(.clientHeard(peer))
                    switch envelope.message {
                    case .submit(let request):
                        await submission(opened: true)
                        // Who counts against the per-client limit: the CURVE key's name, or the address.
                        let principal = message.userID.map { "key \($0)" } ?? message.peerAddress ?? "an unknown address"
                        group.addTask {
                            await self.serve(request, correlation: envelope.correlation, from: peer, principal: principal, on: endpoint)
                            await self.submission(opened: false)
                        }
                    case .attach(let request):
                        await submission(opened: true)
                        group.addTask {
                            await self.serve(request, correlation: envelope.correlation, from: peer, on: endpoint)
                            await self.submission(opened: false)
                        }
                    case .cancel(let id):
                        await cancel(job: id, reason: "cancelled by the client")
                    case .statusRequest:
                        let status = await status()
                        endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.statusReply(status), correlation: envelope.correlation)))
                    case .heartbeat:
                        // A heartbeat naming a job is echoed with its id only while that job
                        // runs for this client; a plain answer tells it the job is gone.
                        let job = envelope.correlation
                        let running = job != 0 ? await follows(JobID(job), peer) : false
                        let echo = running ? job : 0
                        endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.heartbeat, correlation: echo)))
                    default:
                        await handle(.malformed(ProtocolError.malformed("unexpected \(envelope.message.type) on the client endpoint"), from: peer))
                    }
                case .sendFailed(let message, let error):
                    await handle(.clientSendFailed(PeerID(sender: message), error))
                case .tick:
                    break  // this endpoint has no clock; the workers' endpoint drives `tick`
                case .dropped(let dropped):
                    let peer = PeerID(sender: dropped)
                    let read = DroppedMessage(dropped, routed: true)
                    let error = read.defect ?? ProtocolError.malformed("unexpected \(read.header.map { "\($0.type)" } ?? "message") on the client endpoint")
                    await handle(.malformed(error, from: peer))
                    if let header = read.header, header.type == .submit { refuse(header, from: peer, on: endpoint, because: error) }
                }
            }
        }
    }

    /// Answers a `submit` that was refused before it was read (`error`), so its client never
    /// waits forever: a request whose header is sound gets an answer.
    private nonisolated func refuse(_ header: MessageHeader, from peer: PeerID, on endpoint: ZMQEndpoint, because error: any Error) {
        let reply = ErrorReply(message: "submit refused: \(error)")
        endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.error(reply), correlation: header.correlation)))
    }

    /// Starts one submitted job and forwards its events to the client until `finished`.
    private nonisolated func serve(_ request: JobRequest, correlation: UInt64, from peer: PeerID, principal: String, on endpoint: ZMQEndpoint) async {
        let follows = request.detached != true
        let accepted: JobAccepted
        let events: AsyncStream<JobEvent>
        do {
            (accepted, events) = try await submit(request, owner: follows ? peer : nil, client: peer, principal: principal)
        } catch {
            let reply = ErrorReply(message: (error as? CoordinatorError)?.message ?? "\(error)")
            endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.error(reply), correlation: correlation)))
            return
        }
        endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.submitted(accepted), correlation: correlation)))
        // A detached job's events are still drained, so they do not pile up in memory.
        for await event in events where follows {
            endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.jobEvent(event))))
        }
    }

    /// Attaches a client to an existing job and forwards its events until `finished`.
    private nonisolated func serve(_ request: AttachRequest, correlation: UInt64, from peer: PeerID, on endpoint: ZMQEndpoint) async {
        let accepted: JobAccepted
        let events: AsyncStream<JobEvent>
        do {
            (accepted, events) = try await attach(request, client: peer)
        } catch {
            let reply = ErrorReply(message: (error as? CoordinatorError)?.message ?? "\(error)")
            endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.error(reply), correlation: correlation)))
            return
        }
        endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.submitted(accepted), correlation: correlation)))
        for await event in events {
            endpoint.send(ZMQMessage([ZMQFrame(peer.bytes)] + WireCodec.encode(.jobEvent(event))))
        }
    }
}

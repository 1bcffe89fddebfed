import Foundation
import Logging
import SqueezeProtocol
import SqueezeZMQ

/// The client side of the cluster protocol: one DEALER connection to the coordinator's
/// client endpoint, used by `submit`, `status` and friends.
///
/// Liveness is ping-pong: while a call runs inside `withLiveness`, the client sends a
/// heartbeat every interval, the coordinator answers each, and any message from it counts as
/// a sign of life. Silence for `liveness` intervals fails the call instead of hanging.
public final class ClusterClient: Sendable {
    /// The coordinator's client endpoint, as given.
    public let address: String
    /// How often heartbeats are sent while a call runs.
    public let heartbeatInterval: Duration
    /// Silent intervals after which the coordinator counts as gone.
    public let liveness: Int
    /// Whether the connection uses CURVE (a refused key then looks like silence).
    private let usesCurve: Bool
    private let endpoint: ZMQEndpoint
    private let lastHeard: LastHeard
    private let logger: Logger

    private init(
        address: String, heartbeatInterval: Duration, liveness: Int, usesCurve: Bool, endpoint: ZMQEndpoint, lastHeard: LastHeard, logger: Logger
    ) {
        self.address = address
        self.heartbeatInterval = heartbeatInterval
        self.liveness = liveness
        self.usesCurve = usesCurve
        self.endpoint = endpoint
        self.lastHeard = lastHeard
        self.logger = logger
    }

    /// Connects to `address` (the connection itself is made in the background by libzmq;
    /// calls made inside `withLiveness` find out whether anyone answers), as a CURVE client
    /// when `curve` is given.
    public static func connect(
        to address: String,
        context: ZMQContext,
        heartbeatInterval: Duration = .seconds(1),
        liveness: Int = 3,
        curve: CurveClientKeys? = nil,
        logger: Logger = Logger(label: "squeeze.client")
    ) async throws -> ClusterClient {
        let heard = LastHeard()
        let endpoint = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "client",
            type: .dealer,
            options: [
                .maxMessageSize(Int64(ProtocolLimits.maxControlBody + 4096)),
                .sendHighWaterMark(1_000),
                .receiveHighWaterMark(100_000),
                .reconnectInterval(100),
                .reconnectIntervalMax(1_000),
                // A cancel sent just before exiting still gets a moment to leave.
                .linger(500),
            ] + (curve?.socketOptions ?? []),
            connect: [address],
            correlation: { message in
                // Runs on the I/O thread for every incoming message: it may prove the
                // coordinator (or the followed job) alive. Nonzero correlation ids on
                // anything but a heartbeat answer a pending request.
                guard let frame = message.frames.first, let header = try? MessageHeader(decoding: frame) else { return nil }
                heard.mark(header)
                guard header.type != .heartbeat, header.correlation != 0 else { return nil }
                return header.correlation
            },
            receiveLimit: ProtocolReceiveLimits.client))
        return ClusterClient(
            address: address, heartbeatInterval: heartbeatInterval, liveness: max(1, liveness), usesCurve: curve != nil,
            endpoint: endpoint, lastHeard: heard, logger: logger)
    }

    /// Sends `request` and waits for `submitted`; throws `refused` with the coordinator's
    /// message when it says no. Call inside `withLiveness`.
    public func submit(_ request: JobRequest) async throws -> JobAccepted {
        var request = request
        if request.heartbeatMilliseconds == nil {
            request.heartbeatMilliseconds = Int(heartbeatInterval.secondsValue * 1000)
        }
        let reply = try await self.request(.submit(request))
        switch reply {
        case .submitted(let accepted): return accepted
        case .error(let error): throw ClientError.refused(error.message)
        default: throw ClientError.unexpectedReply("\(reply.type)")
        }
    }

    /// Asks to follow job `id`, which already exists (running, or recently ended); throws
    /// `refused` with the coordinator's message when it does not know it. With `owner`, the
    /// job is cancelled if this client vanishes, as with its submitter. Call inside
    /// `withLiveness`, then `follow(job:)` and read `jobEvents()`: they start with where the
    /// job stands (`started`, `progress`), or with `finished` alone for a job that ended.
    public func attach(job id: UInt64, owner: Bool) async throws -> JobAccepted {
        let request = AttachRequest(
            jobID: id, heartbeatMilliseconds: owner ? Int(heartbeatInterval.secondsValue * 1000) : nil, owner: owner ? true : nil)
        let reply = try await self.request(.attach(request))
        switch reply {
        case .submitted(let accepted): return accepted
        case .error(let error): throw ClientError.refused(error.message)
        default: throw ClientError.unexpectedReply("\(reply.type)")
        }
    }

    /// Asks for the cluster's workers and jobs. Call inside `withLiveness`.
    public func status() async throws -> ClusterStatus {
        let reply = try await request(.statusRequest)
        switch reply {
        case .statusReply(let status): return status
        case .error(let error): throw ClientError.refused(error.message)
        default: throw ClientError.unexpectedReply("\(reply.type)")
        }
    }

    /// From now on liveness is judged by job `id`: its events, and heartbeats the coordinator
    /// echoes with its id while the job runs for this client. Call after `submit`.
    public func follow(job id: UInt64) {
        lastHeard.followedJob = id
    }

    /// Asks the coordinator to cancel job `id`; its followers get `finished` with state
    /// `cancelled`. Safe to call from any thread, including a signal handler's queue.
    public func cancel(job id: UInt64) {
        endpoint.send(ZMQMessage(WireCodec.encode(.cancel(id))))
    }

    /// The events of the job this client submitted (heartbeats and anything malformed are
    /// dropped). Iterate inside `withLiveness`; it ends when the connection is closed.
    public func jobEvents() -> some AsyncSequence<JobEvent, Never> {
        let logger = logger
        return endpoint.events.compactMap { event -> JobEvent? in
            if case .dropped(let dropped) = event {
                let read = DroppedMessage(dropped, routed: false)
                logger.warning("dropped a message from the coordinator: \(read.defect.map { "\($0)" } ?? "unexpected \(read.header.map { "\($0.type)" } ?? "message")")")
                return nil
            }
            guard case .message(let message) = event else { return nil }
            do {
                let envelope = try WireCodec.decode(message.frames)
                switch envelope.message {
                case .jobEvent(let jobEvent): return jobEvent
                case .heartbeat: return nil
                default:
                    logger.warning("unexpected \(envelope.message.type) from the coordinator; dropped")
                    return nil
                }
            } catch {
                logger.warning("dropped malformed message: \(error)")
                return nil
            }
        }
    }

    /// Runs `body` while heartbeating; throws `unreachable` or `lost` as soon as the
    /// coordinator has been silent for `liveness` intervals, cancelling `body`.
    public func withLiveness<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await self.keepAlive()
                return nil
            }
            defer { group.cancelAll() }
            while let value = try await group.next() {
                if let value { return value }
            }
            throw CancellationError()
        }
    }

    /// Connects to `address` (with `curve` keys, when given), asks for the status within the
    /// liveness deadline and closes.
    public static func fetchStatus(
        from address: String, context: ZMQContext, liveness: Int = 3, curve: CurveClientKeys? = nil
    ) async -> Result<ClusterStatus, any Error> {
        let client: ClusterClient
        do {
            client = try await connect(to: address, context: context, liveness: liveness, curve: curve)
        } catch {
            return .failure(error)
        }
        let result: Result<ClusterStatus, any Error>
        do {
            result = .success(try await client.withLiveness { try await client.status() })
        } catch {
            result = .failure(error)
        }
        await client.close()
        return result
    }

    /// Closes the connection.
    public func close() async {
        await endpoint.shutdown()
    }

    private func request(_ message: WireMessage) async throws -> WireMessage {
        // The deadline is generous: liveness, not this timeout, decides when to give up.
        let reply = try await endpoint.request(timeout: .seconds(24 * 3600)) { correlation in
            ZMQMessage(WireCodec.encode(message, correlation: correlation))
        }
        return try WireCodec.decode(reply.frames).message
    }

    private func keepAlive() async throws {
        let started = ContinuousClock.now
        let deadline = heartbeatInterval * liveness
        var lastSent: ContinuousClock.Instant?
        while !Task.isCancelled {
            let now = ContinuousClock.now
            if lastSent.map({ now - $0 >= heartbeatInterval }) ?? true {
                endpoint.send(ZMQMessage(WireCodec.encode(.heartbeat, correlation: lastHeard.followedJob)))
                lastSent = now
            }
            let heard = lastHeard.value
            if now - (heard.map { max($0, started) } ?? started) > deadline {
                guard heard != nil else {
                    throw usesCurve
                        ? ClientError.unreachableWithKey(address: address, seconds: deadline.secondsValue)
                        : ClientError.unreachable(address: address, seconds: deadline.secondsValue)
                }
                throw ClientError.lost(address: address, seconds: deadline.secondsValue)
            }
            try? await Task.sleep(for: min(heartbeatInterval, .milliseconds(100)))
        }
    }
}

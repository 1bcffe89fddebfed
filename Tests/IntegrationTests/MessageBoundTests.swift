import Foundation
import SqueezeProtocol
import SqueezeZMQ
import Testing

/// A peer sends the coordinator one message of a small type followed by hundreds of MiB of
/// frames. libzmq buffers a whole message before the coordinator sees any of it, so the peak
/// is libzmq's; what the coordinator must do is read it without keeping it, drop it, count it,
/// and give the memory back, on both endpoints, whether the peer registered or not.
@Suite("Hostile messages of many frames", .serialized)
struct MessageBoundTests {
    /// One attack: where, from whom, and what.
    struct Attack: Sendable, CustomTestStringConvertible {
        enum Port: String, Sendable { case workers, clients }

        let port: Port
        /// A worker that was welcomed, or a client that was answered, before it attacks.
        let registered: Bool
        let type: MessageType
        let frames: Int
        let frameBytes: Int

        var testDescription: String {
            "\(type) + \(frames) frames of \(frameBytes >> 10) KiB, \(port) port, \(registered ? "registered" : "unregistered") peer"
        }
    }

    static let attacks: [Attack] = [Attack.Port.workers, .clients].flatMap { port in
        [true, false].flatMap { registered in
            [
                Attack(port: port, registered: registered, type: .statusRequest, frames: 40, frameBytes: 8 << 20),
                Attack(port: port, registered: registered, type: .heartbeat, frames: 4_800, frameBytes: 128 << 10),
            ]
        }
    }

    /// How much the coordinator's resident set may grow for good once a message is dropped.
    static let allowedGrowthMiB = 16

    @Test("the coordinator drops the message, counts it, and its resident set settles within 16 MiB of where it was", arguments: attacks)
    func residentSetSettles(_ attack: Attack) async throws {
        let tree = try TestTree()
        try FileManager.default.createDirectory(atPath: tree.path("data"), withIntermediateDirectories: true)
        // A long heartbeat: the raw worker sends none and must stay registered throughout.
        let cluster = try TestCluster(
            root: tree.path("data"), logs: tree.root, workers: 0, coordinatorArguments: ["--heartbeat", "20s", "--no-state"])
        let pid = cluster.coordinator.pid
        let context = try ZMQContext()
        let observer = try await Self.dealer(context, connect: cluster.clientEndpoint, id: "observer")
        let id = "hostile-\(attack.port)"
        let peer = try await Self.dealer(context, connect: attack.port == .workers ? cluster.workerEndpoint : cluster.clientEndpoint, id: id)
        if attack.registered {
            switch attack.port {
            case .workers:
                peer.send(ZMQMessage(WireCodec.encode(.workerReady(WorkerHello(workerID: id, host: "test", slots: 1, pid: 1)))))
                let welcomed = try await Self.poll { try await Self.status(observer).workers.count == 1 }
                try #require(welcomed, "the raw worker was not registered")
            case .clients:
                _ = try await Self.status(peer)
            }
        }
        let malformed = try await Self.status(observer).malformedMessages
        let before = try #require(ProcessStatus.mebibytes("VmRSS", of: pid))

        let bulk = [UInt8](repeating: 0x5A, count: attack.frameBytes).withUnsafeBytes { FrameBytes(copying: $0) }
        let header = ZMQFrame(MessageHeader(type: attack.type).encoded())
        peer.send(ZMQMessage([header] + Array(repeating: ZMQFrame(bulk), count: attack.frames)))
        var peak = before
        let counted = try await Self.poll(timeout: .seconds(120)) {
            if let now = ProcessStatus.mebibytes("VmRSS", of: pid) { peak = max(peak, now) }
            return try await Self.status(observer).malformedMessages > malformed
        }
        let settled = try #require(ProcessStatus.mebibytes("VmRSS", of: pid))
        let highWater = ProcessStatus.mebibytes("VmHWM", of: pid) ?? 0
        print("message bound: \(attack.testDescription): VmRSS \(before) MiB before, peak seen \(peak) MiB (VmHWM \(highWater)), \(settled) MiB after the drop")

        #expect(counted, "the message was not counted as malformed")
        #expect(settled - before < Self.allowedGrowthMiB, "the coordinator kept \(settled - before) MiB after dropping the message (\(before) → \(settled) MiB)")
        let status = try await Self.status(observer)
        #expect(status.workers.count == (attack.registered && attack.port == .workers ? 1 : 0), "a dropped message changed who is registered")
        await peer.shutdown()
        await observer.shutdown()
        _ = await context.terminate(timeout: .seconds(3))
        withExtendedLifetime(cluster) {}
    }

    /// A DEALER with routing id `id`, connected to `address`, whose replies resolve requests.
    static func dealer(_ context: ZMQContext, connect address: String, id: String) async throws -> ZMQEndpoint {
        try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: id, type: .dealer, options: [.routingID(Array(id.utf8))], connect: [address],
            correlation: { message in
                guard let frame = message.frames.first, let header = try? MessageHeader(decoding: frame), header.type == .statusReply else { return nil }
                return header.correlation
            }))
    }

    /// The coordinator's `statusReply`, asked over `client`.
    static func status(_ client: ZMQEndpoint) async throws -> ClusterStatus {
        let reply = try await client.request(timeout: .seconds(20)) { id in ZMQMessage(WireCodec.encode(.statusRequest, correlation: id)) }
        guard case .statusReply(let status) = try WireCodec.decode(reply.frames).message else { throw ProtocolError.malformed("not a statusReply") }
        return status
    }

    /// Asks `condition` every 100 ms until it holds or `timeout` passes.
    static func poll(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

import Foundation
import Testing
@testable import SqueezeZMQ

/// Correlation ids travel as the first frame, 8 bytes little-endian, in these tests.
private func idFrame(_ id: UInt64) -> [UInt8] { withUnsafeBytes(of: id.littleEndian) { Array($0) } }
private let firstFrameID: @Sendable (ZMQMessage) -> UInt64? = { message in
    guard let frame = message.frames.first, frame.count == 8 else { return nil }
    return frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
}

/// A ROUTER that echoes every message back to its sender, optionally only the first `limit`.
private func startEchoServer(_ context: ZMQContext, bind: String, reply: Bool = true) async throws -> (ZMQEndpoint, Task<Int, Never>) {
    let router = try await ZMQEndpoint.start(
        context: context,
        configuration: ZMQEndpointConfiguration(name: "echo", type: .router, options: [.routerMandatory(true)], bind: [bind])
    )
    let task = Task {
        var seen = 0
        for await event in router.events {
            guard case .message(let message) = event else { continue }
            seen += 1
            if reply { router.send(message) }
        }
        return seen
    }
    return (router, task)
}

private func startClient(_ context: ZMQContext, connect: String) async throws -> ZMQEndpoint {
    try await ZMQEndpoint.start(
        context: context,
        configuration: ZMQEndpointConfiguration(name: "client", type: .dealer, connect: [connect], correlation: firstFrameID)
    )
}

@Suite("ZMQEndpoint")
struct ZMQEndpointTests {
    static let transports = ["inproc://squeeze-test-\(UUID().uuidString)", "tcp://127.0.0.1:*"]

    @Test("messages flow both ways", arguments: transports)
    func roundTrip(address: String) async throws {
        let context = try ZMQContext()
        let (server, serverTask) = try await startEchoServer(context, bind: address)
        let client = try await startClient(context, connect: server.boundEndpoints[0])
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        client.send(ZMQMessage([[1, 2, 3], payload, []]))
        var iterator = client.events.makeAsyncIterator()
        guard case .message(let echoed) = await iterator.next() else {
            Issue.record("no echo")
            return
        }
        #expect(echoed.frames == [[1, 2, 3], ZMQFrame(payload), []])
        await client.shutdown()
        await server.shutdown()
        #expect(await serverTask.value == 1)
        context.close()
    }

    @Test("a request resumes with its reply", arguments: transports)
    func requestReply(address: String) async throws {
        let context = try ZMQContext()
        let (server, _) = try await startEchoServer(context, bind: address)
        let client = try await startClient(context, connect: server.boundEndpoints[0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                group.addTask {
                    let reply = try await client.request(timeout: .seconds(5)) { id in ZMQMessage([idFrame(id), [UInt8(n)]]) }
                    #expect(reply.frames[1] == [UInt8(n)])
                }
            }
            try await group.waitForAll()
        }
        await client.shutdown()
        await server.shutdown()
        context.close()
    }

    @Test("a request with no reply times out", arguments: transports)
    func requestTimeout(address: String) async throws {
        let context = try ZMQContext()
        let (server, serverTask) = try await startEchoServer(context, bind: address, reply: false)
        let client = try await startClient(context, connect: server.boundEndpoints[0])
        let started = ContinuousClock.now
        await #expect(throws: ZMQRequestError.timedOut(.milliseconds(200))) {
            _ = try await client.request(timeout: .milliseconds(200)) { ZMQMessage([idFrame($0)]) }
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(200) && waited < .seconds(3))
        await client.shutdown()
        await server.shutdown()
        #expect(await serverTask.value == 1)
        context.close()
    }

    @Test("cancelling the waiting task resumes the request with CancellationError", arguments: transports)
    func requestCancelled(address: String) async throws {
        let context = try ZMQContext()
        let (server, _) = try await startEchoServer(context, bind: address, reply: false)
        let client = try await startClient(context, connect: server.boundEndpoints[0])
        let waiting = Task {
            try await client.request(timeout: .seconds(60)) { ZMQMessage([idFrame($0)]) }
        }
        try await Task.sleep(for: .milliseconds(100))
        waiting.cancel()
        let started = ContinuousClock.now
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(2))

        // Already cancelled before the request starts: fails at once, nothing left pending.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.request(timeout: .seconds(60)) { ZMQMessage([idFrame($0)]) }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        await client.shutdown()
        await server.shutdown()
        context.close()
    }

    @Test("shutdown fails pending requests and refuses new ones", arguments: transports)
    func shutdownWhilePending(address: String) async throws {
        let context = try ZMQContext()
        let (server, _) = try await startEchoServer(context, bind: address, reply: false)
        let client = try await startClient(context, connect: server.boundEndpoints[0])
        let pending = (0..<5).map { _ in
            Task { try await client.request(timeout: .seconds(60)) { ZMQMessage([idFrame($0)]) } }
        }
        try await Task.sleep(for: .milliseconds(100))
        await client.shutdown()
        for task in pending {
            await #expect(throws: ZMQRequestError.shutdown) { try await task.value }
        }
        await #expect(throws: ZMQRequestError.shutdown) {
            _ = try await client.request(timeout: .seconds(1)) { ZMQMessage([idFrame($0)]) }
        }
        #expect(client.send(ZMQMessage([[1]])) == false)
        await client.shutdown()  // idempotent
        await server.shutdown()
        context.close()
    }

    @Test("a ROUTER reports an unroutable message instead of dropping it")
    func routerMandatory() async throws {
        let context = try ZMQContext()
        let router = try await ZMQEndpoint.start(
            context: context,
            configuration: ZMQEndpointConfiguration(name: "r", type: .router, options: [.routerMandatory(true)], bind: ["tcp://127.0.0.1:*"])
        )
        router.send(ZMQMessage([Array("nobody".utf8), [1]]))
        var events = router.events.makeAsyncIterator()
        guard case .sendFailed(let message, let error) = await events.next() else {
            Issue.record("expected a send failure")
            return
        }
        #expect(Array(message.frames[0]) == Array("nobody".utf8))
        #expect(error.errno == EHOSTUNREACH)
        await router.shutdown()
        context.close()
    }

    @Test("a failed bind throws an error naming the call and errno")
    func bindError() async throws {
        let context = try ZMQContext()
        let (server, _) = try await startEchoServer(context, bind: "tcp://127.0.0.1:*")
        let taken = server.boundEndpoints[0]
        do {
            _ = try await ZMQEndpoint.start(
                context: context,
                configuration: ZMQEndpointConfiguration(name: "dup", type: .router, bind: [taken])
            )
            Issue.record("second bind to \(taken) succeeded")
        } catch let error as ZMQError {
            #expect(error.errno == EADDRINUSE)
            #expect(error.operation.contains("zmq_bind"))
            #expect(error.description.contains(taken))
        }
        await server.shutdown()
        context.close()
    }
}

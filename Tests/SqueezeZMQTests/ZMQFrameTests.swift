import Foundation
import Testing
@testable import SqueezeZMQ

@Suite("ZMQFrame")
struct ZMQFrameTests {
    @Test("array and shared frames of the same bytes are equal and read alike")
    func storageDoesNotMatter() {
        let bytes: [UInt8] = (0..<100).map { UInt8($0) }
        let owner = bytes.withUnsafeBytes { FrameBytes(copying: $0) }
        let whole = ZMQFrame(owner)
        let part = ZMQFrame(owner, range: 10..<20)
        #expect(whole == ZMQFrame(bytes))
        #expect(part == ZMQFrame(Array(bytes[10..<20])))
        #expect(part != ZMQFrame(Array(bytes[11..<21])))
        #expect(Array(part) == Array(10..<20))
        #expect(part[0] == 10 && part.count == 10)
        #expect(part.shared?.offset == 10)
        #expect(ZMQFrame(bytes).shared == nil)
        #expect(ZMQFrame(owner, range: 100..<100).isEmpty)
        #expect(Data(part) == Data(bytes[10..<20]))
    }

    @Test("a received frame's bytes outlive the message and the event that brought them", arguments: [
        "inproc://squeeze-frame-\(UUID().uuidString)", "tcp://127.0.0.1:*",
    ])
    func receivedFrameOutlivesMessage(address: String) async throws {
        let context = try ZMQContext()
        let receiver = try await ZMQEndpoint.start(
            context: context, configuration: ZMQEndpointConfiguration(name: "in", type: .pair, bind: [address]))
        let sender = try await ZMQEndpoint.start(
            context: context, configuration: ZMQEndpointConfiguration(name: "out", type: .pair, connect: [receiver.boundEndpoints[0]]))
        let big = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        sender.send(ZMQMessage([[1, 2, 3], big]))
        var kept: [ZMQFrame] = []
        do {
            var events = receiver.events.makeAsyncIterator()
            guard case .message(let message) = await events.next() else {
                Issue.record("nothing received")
                return
            }
            kept = message.frames
        }
        #expect(kept[0].shared == nil, "a small frame is copied and its message closed")
        #expect(kept[1].shared != nil, "a big frame is the libzmq message itself")
        await sender.shutdown()
        await receiver.shutdown()
        context.close()
        #expect(Array(kept[0]) == [1, 2, 3])
        #expect(Array(kept[1]) == big)
    }

    @Test("a sent pooled frame comes back to its pool exactly once, after the peer lets go", arguments: [
        "inproc://squeeze-pool-\(UUID().uuidString)", "tcp://127.0.0.1:*",
    ])
    func sentFrameReturnsOnce(address: String) async throws {
        let context = try ZMQContext()
        let pool = FrameBufferPool(keepingBytes: 16 << 20)
        let receiver = try await ZMQEndpoint.start(
            context: context, configuration: ZMQEndpointConfiguration(name: "in", type: .pair, bind: [address]))
        let sender = try await ZMQEndpoint.start(
            context: context, configuration: ZMQEndpointConfiguration(name: "out", type: .pair, connect: [receiver.boundEndpoints[0]]))
        let bytes = pool.fill(count: 100_000) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index / 3) }
            return buffer.count
        }
        let expected = Array(ZMQFrame(bytes))
        // Three frames over one buffer, overlapping like consecutive blocks and their dictionaries.
        sender.send(ZMQMessage([ZMQFrame(bytes, range: 0..<60_000), ZMQFrame(bytes, range: 50_000..<100_000), ZMQFrame(bytes)]))
        var received: ZMQMessage?
        var events = receiver.events.makeAsyncIterator()
        if case .message(let message) = await events.next() { received = message }
        let message = try #require(received)
        #expect(Array(message.frames[0]) == Array(expected[0..<60_000]))
        #expect(Array(message.frames[1]) == Array(expected[50_000..<100_000]))
        #expect(Array(message.frames[2]) == expected)
        if address.hasPrefix("inproc") {
            // inproc hands the sender's message over as it is: the receiver reads the pool's buffer.
            #expect(pool.idleBuffers == 0)
        }
        received = nil
        _ = consume message
        _ = consume bytes
        // libzmq calls the free function on its own thread once it is done; wait for it.
        try await Self.expectGivenBackOnce(pool)
        await sender.shutdown()
        await receiver.shutdown()
        context.close()
    }

    @Test("a pooled frame whose send fails comes back once the failure report is dropped")
    func failedSendReleases() async throws {
        let context = try ZMQContext()
        let pool = FrameBufferPool(keepingBytes: 1 << 20)
        let router = try await ZMQEndpoint.start(
            context: context,
            configuration: ZMQEndpointConfiguration(name: "r", type: .router, options: [.routerMandatory(true)], bind: ["tcp://127.0.0.1:*"]))
        // The routing id itself is a pooled frame, so the frame libzmq refuses holds a retain.
        let peer = pool.fill(count: 6) { buffer in
            buffer.copyBytes(from: Array("nobody".utf8))
            return 6
        }
        router.send(ZMQMessage([ZMQFrame(peer), ZMQFrame(peer)]))
        _ = consume peer
        var events = router.events.makeAsyncIterator()
        do {
            guard case .sendFailed(let message, let error) = await events.next() else {
                Issue.record("expected a send failure")
                return
            }
            #expect(error.errno == EHOSTUNREACH)
            #expect(Array(message.frames[0]) == Array("nobody".utf8))
            #expect(pool.idleBuffers == 0, "the failure report still holds the frames")
        }
        // The endpoint's I/O thread may still hold its outbox batch for a moment after it
        // reported the failure: wait for the last reference to go.
        try await Self.expectGivenBackOnce(pool)
        await router.shutdown()
        context.close()
    }

    /// Waits (5 s at most) for the pool's only buffer to come back, then checks it came back
    /// exactly once.
    private static func expectGivenBackOnce(_ pool: FrameBufferPool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while pool.idleBuffers == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(pool.idleBuffers == 1, sourceLocation: sourceLocation)
        try await Task.sleep(for: .milliseconds(50))
        #expect(pool.idleBuffers == 1, "given back once", sourceLocation: sourceLocation)
        #expect(pool.counts.created == 1, sourceLocation: sourceLocation)
    }
}

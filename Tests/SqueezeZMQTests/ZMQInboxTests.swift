import Foundation
import Testing
@testable import SqueezeZMQ

/// The bounded inbox between an endpoint's I/O thread and its reader.
@Suite("ZMQ inbox")
struct ZMQInboxTests {
    /// Polls `condition` every 10 ms for up to 10 s.
    private func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test("a reader that does not read holds at most the inbox's bound; every message still arrives, in order",
          arguments: [(8, 64 << 20, 8), (1024, 100_000, 3)])
    func slowReaderBoundsMemory(messages: Int, bytes: Int, held: Int) async throws {
        let context = try ZMQContext()
        let router = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "slow", type: .router, bind: ["tcp://127.0.0.1:*"], inboxMessages: messages, inboxBytes: bytes))
        let dealer = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "fast", type: .dealer, connect: router.boundEndpoints))
        let count = 300
        for index in 0..<count {
            dealer.send(ZMQMessage([withUnsafeBytes(of: UInt32(index)) { Array($0) }, [UInt8](repeating: 7, count: 40_000)]))
        }
        #expect(await eventually { router.bufferedEvents == held })
        // It stays there: the I/O thread does not receive while the inbox is full.
        try await Task.sleep(for: .milliseconds(200))
        #expect(router.bufferedEvents == held)

        var received: [UInt32] = []
        for await event in router.events {
            guard case .message(let message) = event, message.frames.count == 3 else { continue }
            received.append(message.frames[1].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            #expect(router.bufferedEvents <= held)
            if received.count == count { break }
        }
        #expect(received == (0..<UInt32(count)).map { $0 })
        await dealer.shutdown()
        await router.shutdown()
        context.close()
    }

    @Test("a waiting reader is resumed once: by an event, by the end, or by cancellation")
    func waitersResumeOnce() async throws {
        let inbox = ZMQInbox(maxEvents: 4, maxBytes: 1 << 20) {}
        // Cancelled while waiting: nil.
        let waiting = Task { await inbox.next() }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == nil)
        // An event handed to a waiting reader.
        let reader = Task { await inbox.next() }
        try await Task.sleep(for: .milliseconds(50))
        inbox.append(.message(ZMQMessage([[1]])))
        guard case .message(let message)? = await reader.value else {
            Issue.record("no event")
            return
        }
        #expect(message.frames == [[1]])
        // Queued events are still read after the end; then nil.
        inbox.append(.message(ZMQMessage([[2]])))
        inbox.finish()
        inbox.append(.message(ZMQMessage([[3]])))  // after the end: dropped
        guard case .message(let last)? = await inbox.next() else {
            Issue.record("queued event lost at the end")
            return
        }
        #expect(last.frames == [[2]])
        #expect(await inbox.next() == nil)
    }

    @Test("taking from a full inbox says so, once per event taken")
    func roomIsSignalled() async {
        let signals = ManagedCounter()
        let inbox = ZMQInbox(maxEvents: 2, maxBytes: 1 << 20) { signals.increment() }
        inbox.append(.message(ZMQMessage([[1]])))
        #expect(inbox.hasRoom)
        inbox.append(.message(ZMQMessage([[2]])))
        #expect(!inbox.hasRoom)
        _ = await inbox.next()
        #expect(inbox.hasRoom)
        #expect(signals.value == 1)
        _ = await inbox.next()
        #expect(signals.value == 1)  // it was not full any more
    }
}

/// A counter the inbox's callback can bump from any thread.
private final class ManagedCounter: @unchecked Sendable {
    // The lock is the synchronization; the callback runs on the reader's thread.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

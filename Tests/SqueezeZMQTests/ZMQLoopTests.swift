import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import SqueezeZMQ

/// An actor whose executor is a `ZMQLoop`, as the coordinator's is.
private actor LoopActor {
    let loop: ZMQLoop
    var count = 0
    var handled: [[UInt8]] = []
    var failedSends = 0

    init(loop: ZMQLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func increment() -> Bool {
        count += 1
        return loop.isCurrent
    }
}

@Suite("ZMQLoop")
struct ZMQLoopTests {
    @Test("an actor on the loop runs its turns on the loop's thread, one at a time")
    func actorTurns() async throws {
        let loop = try ZMQLoop(name: "test-loop")
        defer { loop.shutdown() }
        let actor = LoopActor(loop: loop)
        #expect(!loop.isCurrent)
        let onLoop = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var all = true
                    for _ in 0..<500 { all = await actor.increment() && all }
                    return all
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(onLoop)
        #expect(await actor.count == 4000)
    }

    @Test("a hosted endpoint's handler runs on the loop, isolated to its actor, and what it sends reaches the peer")
    func hostedEcho() async throws {
        let context = try ZMQContext()
        let loop = try ZMQLoop(name: "test-hosted")
        defer { loop.shutdown() }
        let actor = LoopActor(loop: loop)
        let offLoop = NIOLockedValueBox(0)
        let routerBox = NIOLockedValueBox<ZMQEndpoint?>(nil)
        let router = try await ZMQEndpoint.start(
            context: context,
            configuration: ZMQEndpointConfiguration(name: "hosted", type: .router, options: [.routerMandatory(true)], bind: ["tcp://127.0.0.1:*"]),
            on: loop
        ) { event in
            if !loop.isCurrent { offLoop.withLockedValue { $0 += 1 } }
            guard case .message(let message) = event else { return }
            // Traps unless the runtime agrees the loop is the actor's executor here.
            actor.assumeIsolated { $0.handled.append(Array(message.frames[1])) }
            routerBox.withLockedValue { $0 }?.send(message)
        }
        routerBox.withLockedValue { $0 = router }
        let client = try await ZMQEndpoint.start(
            context: context,
            configuration: ZMQEndpointConfiguration(name: "client", type: .dealer, connect: router.boundEndpoints))
        for index in 0..<50 { client.send(ZMQMessage([[UInt8(index)]])) }
        var echoed: [[UInt8]] = []
        for await event in client.events {
            guard case .message(let message) = event else { continue }
            echoed.append(Array(message.frames[0]))
            if echoed.count == 50 { break }
        }
        #expect(echoed == (0..<50).map { [UInt8($0)] })
        #expect(await actor.handled == (0..<50).map { [UInt8($0)] })
        #expect(offLoop.withLockedValue { $0 } == 0)
        #expect(router.bufferedEvents == 0)
        await client.shutdown()
        await router.shutdown()
        routerBox.withLockedValue { $0 = nil }
        // Its events went to the handler: the stream has none and ends with the endpoint.
        var leftOver = 0
        for await _ in router.events { leftOver += 1 }
        #expect(leftOver == 0)
        // The loop still runs the actor once its endpoint has gone.
        #expect(await actor.increment())
        context.close()
    }

    @Test("a send that fails inside the handler comes back as an event after it returns, not within it")
    func failedSendIsNotReentrant() async throws {
        let context = try ZMQContext()
        let loop = try ZMQLoop(name: "test-failure")
        defer { loop.shutdown() }
        let depth = NIOLockedValueBox((now: 0, deepest: 0, failures: 0))
        let routerBox = NIOLockedValueBox<ZMQEndpoint?>(nil)
        let (failed, failedSink) = AsyncStream.makeStream(of: Void.self)
        let router = try await ZMQEndpoint.start(
            context: context,
            configuration: ZMQEndpointConfiguration(name: "hosted", type: .router, options: [.routerMandatory(true)], bind: ["tcp://127.0.0.1:*"]),
            on: loop
        ) { event in
            depth.withLockedValue { $0.now += 1; $0.deepest = max($0.deepest, $0.now) }
            defer { depth.withLockedValue { $0.now -= 1 } }
            switch event {
            case .message:
                // No peer has this routing id: with ROUTER_MANDATORY the send fails at once.
                routerBox.withLockedValue { $0 }?.send(ZMQMessage([[9, 9, 9, 9], [1]]))
            case .sendFailed(let message, let error):
                #expect(message.frames[0] == [9, 9, 9, 9])
                #expect(error.errno == EHOSTUNREACH)
                depth.withLockedValue { $0.failures += 1 }
                failedSink.yield()
            case .tick, .dropped:
                break
            }
        }
        routerBox.withLockedValue { $0 = router }
        let client = try await ZMQEndpoint.start(
            context: context,
            configuration: ZMQEndpointConfiguration(name: "client", type: .dealer, connect: router.boundEndpoints))
        client.send(ZMQMessage([[1]]))
        var iterator = failed.makeAsyncIterator()
        _ = await iterator.next()
        let seen = depth.withLockedValue { $0 }
        #expect(seen.failures == 1)
        #expect(seen.deepest == 1)
        await client.shutdown()
        await router.shutdown()
        routerBox.withLockedValue { $0 = nil }
        context.close()
    }
}

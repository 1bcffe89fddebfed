import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import SqueezeZMQ

/// The clock an endpoint's I/O thread keeps for its owner's periodic work.
@Suite("Endpoint ticks")
struct EndpointTickTests {
    @Test("a tick is due an interval after the last one, may wait half as long again for a wake, and a late wake ticks once")
    func clock() {
        let start = ContinuousClock.now
        var clock = EndpointClock(interval: .milliseconds(100), slack: .milliseconds(50), start: start)
        let due1 = clock.isDue(at: start + .milliseconds(99))
        #expect(!due1)
        #expect(clock.deadline == start + .milliseconds(150))
        // Due from 100 ms on; the next is measured from when this one was taken.
        let due2 = clock.isDue(at: start + .milliseconds(120))
        #expect(due2)
        let due3 = clock.isDue(at: start + .milliseconds(200))
        #expect(!due3)
        #expect(clock.due == start + .milliseconds(220))
        // A thread that wakes a second late ticks once, then waits a whole interval again.
        let due4 = clock.isDue(at: start + .seconds(1))
        #expect(due4)
        let due5 = clock.isDue(at: start + .seconds(1) + .milliseconds(99))
        #expect(!due5)
    }

    @Test("at most one tick waits in the inbox; a reader that took it lets the next in; a waiting reader gets one")
    func inboxHoldsOneTick() async {
        let inbox = ZMQInbox(maxEvents: 8, maxBytes: 1 << 20) {}
        inbox.appendTick()
        inbox.appendTick()
        #expect(inbox.count == 1)
        guard case .tick? = await inbox.next() else {
            Issue.record("no tick")
            return
        }
        inbox.appendTick()
        #expect(inbox.count == 1)
        _ = await inbox.next()
        #expect(inbox.count == 0)
        async let waiting = inbox.next()
        // The reader parks (nothing queued); the tick goes straight to it.
        try? await Task.sleep(for: .milliseconds(50))
        inbox.appendTick()
        guard case .tick? = await waiting else {
            Issue.record("the waiting reader got no tick")
            return
        }
        #expect(inbox.count == 0)
    }

    @Test("an endpoint with a tick interval puts ticks among its events at that pace, riding with messages; one without puts none")
    func endpointTicks() async throws {
        let context = try ZMQContext()
        let ticking = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "ticking", type: .router, bind: ["tcp://127.0.0.1:*"], tickInterval: .milliseconds(20)))
        let plain = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "plain", type: .dealer, connect: ticking.boundEndpoints))
        let started = ContinuousClock.now
        var ticks = 0
        var messages = 0
        for await event in ticking.events {
            switch event {
            case .tick:
                ticks += 1
                if ticks <= 5 { plain.send(ZMQMessage([[UInt8(ticks)]])) }
            case .message:
                messages += 1
            case .sendFailed, .dropped:
                break
            }
            if ticks >= 10 && messages == 5 { break }
        }
        let elapsed = ContinuousClock.now - started
        // Ten ticks take at least nine intervals, and at most one and a half each (plus a
        // generous margin for a loaded machine).
        #expect(elapsed >= .milliseconds(180))
        #expect(elapsed < .seconds(5))
        await ticking.shutdown()

        // The dealer has no clock: after its peer's messages stop, nothing comes to it.
        let quiet = NIOLockedValueBox(0)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in plain.events {
                    if case .tick = event { quiet.withLockedValue { $0 += 1 } }
                }
            }
            try? await Task.sleep(for: .milliseconds(200))
            await plain.shutdown()
        }
        #expect(quiet.withLockedValue { $0 } == 0)
    }
}

import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// What the core tells the workers' endpoint about who is registered, and how it counts the
/// messages that endpoint dropped as it read them.
@Suite("CoordinatorCore: registration and dropped messages")
struct RegistrationTests {
    /// The registration effects among `effects`, in order.
    static func registrations(_ effects: [CoordinatorEffect]) -> [(PeerID, Bool)] {
        effects.compactMap { if case .registration(let peer, let registered) = $0 { (peer, registered) } else { nil } }
    }

    @Test("a worker is marked registered before its welcome goes out, and forgotten when it leaves, falls silent or is refused")
    func registrationEffects() {
        var harness = CoreHarness()
        let joined = harness.register(a)
        let marked = joined.firstIndex { if case .registration(a, true) = $0 { true } else { false } }
        let welcomed = joined.firstIndex { if case .send(.welcome, a) = $0 { true } else { false } }
        #expect(marked != nil && welcomed != nil && marked! < welcomed!)
        #expect(Self.registrations(harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(1))).map(\.1) == [false])
        // Leaving twice, or a stranger's goodbye, forgets nobody again.
        #expect(Self.registrations(harness.handle(.workerMessage(.goodbye, from: a, origin: nil), at: .milliseconds(2))).isEmpty)

        harness.register(b, at: .milliseconds(3))
        // Liveness 3 at 1 s: silent past 3 s, declared dead on the next round.
        let silent = harness.handle(.tick, at: .seconds(5))
        #expect(Self.registrations(silent).map(\.0) == [b] && Self.registrations(silent).map(\.1) == [false])

        harness.register(a, at: .seconds(6))
        let refused = harness.handle(.workerMessage(.workerReady(WorkerHello(workerID: "a", host: "test", slots: 0, pid: 1)), from: a, origin: nil),
                                     at: .seconds(6))
        #expect(Self.registrations(refused).map(\.1) == [false])
        #expect(harness.core.workers.isEmpty)
    }

    /// A dropped message as the workers' endpoint reports it: routing id `peer`, a header of
    /// `type`, and `frames` frames of `bytes` bytes in all (routing id and header included).
    static func dropped(_ type: MessageType, from peer: PeerID, frames: Int, bytes: Int) -> DroppedMessage {
        let leading = [ZMQFrame(peer.bytes), ZMQFrame(MessageHeader(type: type).encoded())]
        return DroppedMessage(ZMQDroppedMessage(leading: leading, frames: frames, bytes: bytes, bound: .nothing), routed: true)
    }

    @Test("a dropped message past its type's bound, or of a type workers do not send, is malformed; an answer that fit is late")
    func droppedMessages() {
        var harness = CoreHarness()
        harness.register(a)
        harness.handle(.dropped(Self.dropped(.heartbeat, from: a, frames: 4_802, bytes: 1 + 16 + 4_800 * (128 << 10)), from: a), at: .zero)
        #expect(harness.core.malformedMessages == 1 && harness.core.workers[a] != nil)
        harness.handle(.dropped(Self.dropped(.statusRequest, from: b, frames: 2, bytes: 1 + 16), from: b), at: .zero)
        #expect(harness.core.malformedMessages == 2)
        // From a peer not registered when it came (a worker declared dead while it compressed).
        harness.handle(.dropped(Self.dropped(.result, from: b, frames: 3, bytes: 1 + 16 + 20), from: b), at: .zero)
        harness.handle(.dropped(Self.dropped(.resultRef, from: b, frames: 3, bytes: 1 + 16 + 28), from: b), at: .zero)
        #expect(harness.core.lateResults == 2 && harness.core.malformedMessages == 2)
        // What such a peer sends beside answers is ignored, as it always was.
        harness.handle(.dropped(Self.dropped(.clock, from: b, frames: 3, bytes: 1 + 16 + 8), from: b), at: .zero)
        #expect(harness.core.lateResults == 2 && harness.core.malformedMessages == 2)
        // An answer past its bound is malformed whoever sent it.
        harness.handle(.dropped(Self.dropped(.result, from: b, frames: 4 + ProtocolLimits.maxBlocksPerItem, bytes: 100), from: b), at: .zero)
        #expect(harness.core.lateResults == 2 && harness.core.malformedMessages == 3)
    }
}

import SqueezeProtocol
import SqueezeZMQ
import Testing
@testable import SqueezeCoordinator

/// A `workerReady` whose body does not decode gets the `error` reply the protocol promises.
@Suite("malformed workerReady")
struct MalformedHelloTests {
    func ready(_ body: String) -> ZMQMessage {
        ZMQMessage([Array("peer".utf8), MessageHeader(type: .workerReady).encoded(), Array(body.utf8)])
    }

    @Test("bodies that do not decode are told apart as a workerReady, whatever is wrong with them",
          arguments: [#"{"workerID":"w","host":"h","slots":18446744073709551616,"pid":1}"#,
                      #"{"workerID":"w","host":"h","slots":1.5,"pid":1}"#,
                      #"{"workerID":"w","host":"h","slots":"3","pid":1}"#,
                      #"{"workerID":"w","host":"h","slots":3}"#,
                      "not json"])
    func typed(body: String) {
        let routed = RoutedMessage(ready(body))
        #expect((try? routed.envelope.get()) == nil)
        #expect(routed.type == .workerReady)
        #expect(routed.peer == PeerID(Array("peer".utf8)))
    }

    @Test("a message that decodes carries no type of its own: the envelope says it")
    func decoded() {
        let routed = RoutedMessage(ready(#"{"workerID":"w","host":"h","slots":3,"pid":1}"#))
        #expect((try? routed.envelope.get()) != nil && routed.type == nil)
    }

    @Test("an unknown peer is answered with error; a registered worker's garbage is only counted")
    func answered() {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let refused = harness.handle(.malformedHello(ProtocolError.malformed("slots: not an Int"), from: "stranger"), at: .zero)
        let reply = refused.sent.first { $0.peer == "stranger" }
        guard case .error(let error)? = reply?.message else {
            Issue.record("no error reply: \(refused.sent)")
            return
        }
        #expect(error.message.hasPrefix("workerReady refused:") && error.message.contains("slots"))
        #expect(harness.core.malformedMessages == 1)
        harness.register(a)
        let quiet = harness.handle(.malformedHello(ProtocolError.malformed("slots"), from: a), at: .milliseconds(1))
        #expect(quiet.sent.isEmpty && harness.core.malformedMessages == 2)
        #expect(harness.core.workers[a] != nil, "still registered")
    }

    @Test("a workerReady too large to read (9 MiB) is dropped as it is read, and the unknown peer still gets its error")
    func oversizedHello() throws {
        var harness = CoreHarness()
        defer { harness.cleanUp() }
        let dropped = ZMQDroppedMessage(leading: [ZMQFrame(Array("big".utf8)), ZMQFrame(MessageHeader(type: .workerReady).encoded())],
                                        frames: 3, bytes: 9 << 20, bound: ZMQMessageBound(frames: 2, bytes: 64 << 10))
        let effects = harness.handle(.dropped(DroppedMessage(dropped, routed: true), from: "big"), at: .zero)
        let reply = effects.sent.first { $0.peer == "big" }
        guard case .error(let error)? = reply?.message else {
            Issue.record("no error reply: \(effects.sent)")
            return
        }
        #expect(error.message.hasPrefix("workerReady refused:"))
        #expect(harness.core.malformedMessages == 1)
    }
}

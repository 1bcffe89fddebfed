import Foundation
import Testing
@testable import SqueezeZMQ

/// The I/O thread's own answers: they leave while the owner reads nothing.
@Suite("ZMQEndpoint reflex")
struct EndpointReflexTests {
    @Test("a message the reflex answers is answered at once, with the owner reading none of its events; the rest wait for the owner", arguments: ["tcp://127.0.0.1:*", "inproc://reflex-\(UUID().uuidString)"])
    func answeredWhileBusy(address: String) async throws {
        let context = try ZMQContext()
        // Answers "ping" (after the routing frame) with "pong"; nothing else.
        let server = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "busy", type: .router, options: [.routerMandatory(true)], bind: [address],
            reflex: { message in
                guard message.frames.count == 2, message.frames[1] == ZMQFrame(Array("ping".utf8)) else { return nil }
                return ZMQMessage([message.frames[0], ZMQFrame(Array("pong".utf8))])
            }))
        let client = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "asker", type: .dealer, connect: [server.boundEndpoints[0]]))
        client.send(ZMQMessage([Array("work".utf8)]))
        client.send(ZMQMessage([Array("ping".utf8)]))
        var replies = client.events.makeAsyncIterator()
        guard case .message(let answer) = await replies.next() else {
            Issue.record("no answer")
            return
        }
        #expect(answer.frames == [ZMQFrame(Array("pong".utf8))])
        // Both messages still reach the owner, in order, whenever it reads.
        var events = server.events.makeAsyncIterator()
        var seen: [[UInt8]] = []
        while seen.count < 2, let event = await events.next() {
            if case .message(let message) = event { seen.append(Array(message.frames[1])) }
        }
        #expect(seen == [Array("work".utf8), Array("ping".utf8)])
        await client.shutdown()
        await server.shutdown()
        context.close()
    }
}

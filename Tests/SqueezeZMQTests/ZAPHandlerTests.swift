import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import SqueezeZMQ

/// The ZAP handler answered by hand (a REQ socket, as libzmq's own ZAP client uses), and
/// CURVE end to end in one process: a ROUTER server, and DEALER clients with and without keys.
@Suite("ZAP handler and CURVE")
struct ZAPHandlerTests {
    private static func request(_ frames: [[UInt8]], to requester: ZMQEndpoint) async -> [[UInt8]]? {
        requester.send(ZMQMessage(frames))
        var iterator = requester.events.makeAsyncIterator()
        guard case .message(let reply) = await iterator.next() else { return nil }
        return reply.frames.map { Array($0) }
    }

    @Test("well-formed requests get the decision, malformed ones 500; the request id is echoed")
    func answers() async throws {
        let context = try ZMQContext()
        let allowed = try CurveKeyPair.generate().publicKey
        let address = "inproc://zap-test-\(UUID().uuidString)"
        let handler = try await ZAPHandler.start(context: context, address: address) { request in
            request.clientKey == allowed ? .allow(userID: "friend") : .deny(.authenticationFailure, "key not authorized")
        }
        let requester = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "zap-client", type: .request, connect: [address]))
        let v = Array("1.0".utf8)
        let curve = Array("CURVE".utf8)
        func frames(id: String, _ credentials: [[UInt8]], version: [UInt8] = Array("1.0".utf8), mechanism: [UInt8] = Array("CURVE".utf8)) -> [[UInt8]] {
            [version, Array(id.utf8), Array("workers".utf8), Array("127.0.0.1".utf8), [], mechanism] + credentials
        }
        let cases: [([[UInt8]], String, String, String)] = [
            (frames(id: "1", [allowed.bytes]), "1", "200", "friend"),
            (frames(id: "2", [try CurveKeyPair.generate().publicKey.bytes]), "2", "400", ""),
            (frames(id: "3", [Array(allowed.bytes.prefix(31))]), "3", "500", ""),
            (frames(id: "4", []), "4", "500", ""),
            (frames(id: "5", [allowed.bytes, allowed.bytes]), "5", "500", ""),
            (frames(id: "6", [allowed.bytes], version: Array("2.0".utf8)), "6", "500", ""),
            (frames(id: "7", [], mechanism: Array("NULL".utf8)), "7", "400", ""),
            ([v, Array("8".utf8), curve], "8", "500", ""),
            ([v], "", "500", ""),
        ]
        for (request, id, status, user) in cases {
            let reply = try #require(await Self.request(request, to: requester), "no reply to \(request)")
            #expect(reply.count == 6)
            #expect(reply.first == v)
            #expect(reply.dropFirst().first == Array(id.utf8), "request id echoed")
            #expect(reply.dropFirst(2).first == Array(status.utf8), "status for request \(id)")
            #expect(reply.dropFirst(4).first == Array(user.utf8))
        }
        #expect(handler.malformedRequests == 6)
        await requester.shutdown()
        await handler.stop()
        await handler.stop()
        context.close()
    }

    @Test("a CURVE server lets in an allowed key only; other keys and keyless peers are counted")
    func endToEnd() async throws {
        let context = try ZMQContext()
        let server = CurveServerKeys(own: try CurveKeyPair.generate())
        let friend = try CurveKeyPair.generate()
        let stranger = try CurveKeyPair.generate()
        let refused = NIOLockedValueBox(0)
        let failures = NIOLockedValueBox(0)
        let handler = try await ZAPHandler.start(context: context) { request in
            if request.clientKey == friend.publicKey { return .allow(userID: "friend") }
            refused.withLockedValue { $0 += 1 }
            return .deny(.authenticationFailure, "no")
        }
        let router = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "server", type: .router, options: server.socketOptions(domain: "test"), bind: ["tcp://127.0.0.1:*"],
            handshakeFailures: { _ in failures.withLockedValue { $0 += 1 } }))
        let address = router.boundEndpoints[0]
        func client(_ name: String, _ keys: CurveClientKeys?) async throws -> ZMQEndpoint {
            let client = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
                name: name, type: .dealer, options: [.routingID(Array(name.utf8))] + (keys?.socketOptions ?? []), connect: [address]))
            client.send(ZMQMessage([Array(name.utf8)]))
            return client
        }
        let clients = [
            try await client("friend", CurveClientKeys(own: friend, server: server.own.publicKey)),
            try await client("stranger", CurveClientKeys(own: stranger, server: server.own.publicKey)),
            try await client("keyless", nil),
            try await client("wrong-server", CurveClientKeys(own: friend, server: stranger.publicKey)),
        ]
        var iterator = router.events.makeAsyncIterator()
        guard case .message(let first) = await iterator.next() else {
            Issue.record("nothing arrived")
            return
        }
        #expect(first.frames.map { Array($0) } == [Array("friend".utf8), Array("friend".utf8)])
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, refused.withLockedValue({ $0 }) == 0 || failures.withLockedValue({ $0 }) < 2 {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(refused.withLockedValue { $0 } >= 1, "the stranger's key went to ZAP and was refused")
        #expect(failures.withLockedValue { $0 } >= 2, "the keyless peer and the one with the wrong server key failed their handshakes")
        #expect(router.bufferedEvents == 0, "only the friend's message arrived")
        for client in clients { await client.shutdown() }
        await router.shutdown()
        await handler.stop()
        context.close()
    }
}

import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import SqueezeZMQ

/// Endpoints that hold each incoming message to a bound decided from its first frames.
@Suite("Receive limits")
struct ReceiveLimitTests {
    static let transports = ["inproc://squeeze-limit-\(UUID().uuidString)", "tcp://127.0.0.1:*"]

    /// A ROUTER whose messages may have 2 + n frames (routing id, a first frame of n, n more)
    /// and 1,000 bytes in all; leading frames longer than 64 bytes are not taken.
    static func limitedRouter(_ context: ZMQContext, bind: String, asked: NIOLockedValueBox<[Int]>) async throws -> ZMQEndpoint {
        try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "limited", type: .router, bind: [bind],
            receiveLimit: ZMQReceiveLimit(leadingFrames: 2, leadingFrameBytes: 64) { leading in
                asked.withLockedValue { $0.append(leading.count) }
                guard leading.count == 2, let n = leading[1].first else { return .nothing }
                return ZMQMessageBound(frames: 2 + Int(n), bytes: 1_000)
            }))
    }

    @Test("a message within its bound arrives whole; one past it in frames or bytes, or with a long leading frame, is dropped with its counts, and the next arrives intact", arguments: transports)
    func dropsWhatGoesPast(address: String) async throws {
        let context = try ZMQContext()
        let asked = NIOLockedValueBox<[Int]>([])
        let router = try await Self.limitedRouter(context, bind: address, asked: asked)
        let dealer = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "sender", type: .dealer, options: [.routingID(Array("sender".utf8))], connect: router.boundEndpoints))
        let big = [UInt8](repeating: 7, count: 20_000)
        dealer.send(ZMQMessage([[3], [1], [2], [3]]))            // 5 frames of 5 allowed
        dealer.send(ZMQMessage([[1], [1], big, [3]]))            // 5 frames of 3 allowed
        dealer.send(ZMQMessage([[9], [UInt8](repeating: 1, count: 2_000)]))  // 2,007 bytes of 1,000
        dealer.send(ZMQMessage([[UInt8](repeating: 1, count: 65), [2]]))     // a leading frame of 65 bytes
        dealer.send(ZMQMessage([[0]]))                           // routing id and one frame: within
        var events: [ZMQEndpointEvent] = []
        for await event in router.events {
            events.append(event)
            if events.count == 5 { break }
        }
        let sender = ZMQFrame(Array("sender".utf8))
        guard events.count == 5,
              case .message(let first) = events[0], case .dropped(let frames) = events[1], case .dropped(let bytes) = events[2],
              case .dropped(let long) = events[3], case .message(let last) = events[4] else {
            Issue.record("events: \(events)")
            return
        }
        #expect(first.frames == [sender, [3], [1], [2], [3]])
        #expect(frames == ZMQDroppedMessage(leading: [sender, [1]], frames: 5, bytes: 6 + 1 + 1 + 20_000 + 1, bound: ZMQMessageBound(frames: 3, bytes: 1_000)))
        #expect(bytes == ZMQDroppedMessage(leading: [sender, [9]], frames: 3, bytes: 6 + 1 + 2_000, bound: ZMQMessageBound(frames: 11, bytes: 1_000)))
        #expect(long == ZMQDroppedMessage(leading: [sender], frames: 3, bytes: 6 + 65 + 1, bound: nil))
        #expect(last.frames == [sender, [0]])
        // Asked once per message whose leading frames were all short: not for the long one.
        #expect(asked.withLockedValue { $0 } == [2, 2, 2, 2])
        await dealer.shutdown()
        await router.shutdown()
        context.close()
    }

    @Test("the bound of a message shorter than the leading frames is decided on the frames it has")
    func shortMessages() async throws {
        let context = try ZMQContext()
        let asked = NIOLockedValueBox<[Int]>([])
        let router = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "limited", type: .router, bind: ["inproc://squeeze-limit-short-\(UUID().uuidString)"],
            receiveLimit: ZMQReceiveLimit(leadingFrames: 3, leadingFrameBytes: 64) { leading in
                asked.withLockedValue { $0.append(leading.count) }
                return leading.count == 2 ? ZMQMessageBound(frames: 2, bytes: 100) : .nothing
            }))
        let dealer = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "sender", type: .dealer, connect: router.boundEndpoints))
        dealer.send(ZMQMessage([[1]]))
        dealer.send(ZMQMessage([[1], [2]]))
        var events: [ZMQEndpointEvent] = []
        for await event in router.events {
            events.append(event)
            if events.count == 2 { break }
        }
        guard case .message(let short)? = events.first, case .dropped(let full)? = events.last else {
            Issue.record("events: \(events)")
            return
        }
        #expect(short.frames.count == 2)
        #expect(full.frames == 3 && full.bound == .nothing && full.leading.count == 3)
        #expect(asked.withLockedValue { $0 } == [2, 3])
        await dealer.shutdown()
        await router.shutdown()
        context.close()
    }

    @Test("a reply dropped for its size fails the request it answers at once", arguments: transports)
    func droppedReplyFailsItsRequest(address: String) async throws {
        let context = try ZMQContext()
        let server = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "server", type: .router, bind: [address]))
        let client = try await ZMQEndpoint.start(context: context, configuration: ZMQEndpointConfiguration(
            name: "client", type: .dealer, connect: server.boundEndpoints,
            correlation: { $0.frames.first.flatMap { $0.count == 8 ? $0.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } : nil } },
            receiveLimit: ZMQReceiveLimit(leadingFrames: 1, leadingFrameBytes: 8) { _ in ZMQMessageBound(frames: 2, bytes: 100) }))
        let answering = Task {
            // Answers each request with its id and 500 bytes: past the client's bound.
            for await event in server.events {
                guard case .message(let message) = event, message.frames.count == 2 else { continue }
                server.send(ZMQMessage([message.frames[0], message.frames[1], ZMQFrame([UInt8](repeating: 0, count: 500))]))
            }
        }
        let started = ContinuousClock.now
        await #expect(throws: ZMQRequestError.replyDropped(frames: 2, bytes: 508)) {
            _ = try await client.request(timeout: .seconds(30)) { id in ZMQMessage([withUnsafeBytes(of: id.littleEndian) { Array($0) }]) }
        }
        #expect(ContinuousClock.now - started < .seconds(20), "the request waited for its timeout")
        await client.shutdown()
        await server.shutdown()
        answering.cancel()
        context.close()
    }

    @Test("bounds add without overflowing and admit only what fits")
    func boundArithmetic() {
        let bound = ZMQMessageBound(frames: 2, bytes: 10)
        #expect(bound.admits(frames: 2, bytes: 10) && !bound.admits(frames: 3, bytes: 1) && !bound.admits(frames: 1, bytes: 11))
        #expect(bound.adding(frames: 1, bytes: 255) == ZMQMessageBound(frames: 3, bytes: 265))
        #expect(ZMQMessageBound(frames: .max, bytes: .max).adding(frames: 1, bytes: 1) == ZMQMessageBound(frames: .max, bytes: .max))
        #expect(ZMQMessageBound(frames: -1, bytes: -5) == .nothing)
    }
}

import CZeroMQ
import Foundation
import NIOConcurrencyHelpers

/// Answers libzmq's authentication requests (ZAP, ZeroMQ RFC 27) for every CURVE server
/// socket of one context, on a thread of its own.
///
/// libzmq sends each handshake's request to `inproc://zeromq.zap.01` in the socket's context
/// and waits for the reply before the peer may send anything. The handler binds a REP socket
/// there, so it must be started before the server sockets bind and stopped only after they
/// have closed: without a handler libzmq lets every CURVE client in. `authorize` runs on the
/// handler's thread (so it may read files) and judges well-formed requests; malformed ones
/// are answered with 500 without it.
public final class ZAPHandler: Sendable {
    /// Where libzmq looks for the handler.
    public static let defaultAddress = "inproc://zeromq.zap.01"

    private struct State {
        var stopping = false
        var malformed = 0
    }

    private let state = NIOLockedValueBox(State())
    private let wakeup: WakeupSignal
    private let exit = ThreadExit()

    private init() throws {
        wakeup = try WakeupSignal()
    }

    /// Malformed requests answered with 500 since start.
    public var malformedRequests: Int { state.withLockedValue { $0.malformed } }

    /// Binds the handler at `address` in `context` on a new thread; returns once it is bound,
    /// or throws the bind's error.
    public static func start(
        context: ZMQContext,
        address: String = defaultAddress,
        authorize: @escaping @Sendable (ZAPRequest) -> ZAPDecision
    ) async throws -> ZAPHandler {
        let handler = try ZAPHandler()
        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                handler.threadMain(context: context, address: address, authorize: authorize, ready: ready)
            }
            thread.name = "zmq-zap"
            thread.start()
        }
        return handler
    }

    /// Stops the thread and closes the socket; returns once it has. Idempotent.
    public func stop() async {
        state.withLockedValue { $0.stopping = true }
        wakeup.signal()
        await exit.wait()
    }

    // MARK: - The handler's thread

    private func threadMain(
        context: ZMQContext, address: String,
        authorize: @Sendable (ZAPRequest) -> ZAPDecision,
        ready: CheckedContinuation<Void, any Error>
    ) {
        let socket: ZMQSocket
        do {
            socket = try ZMQSocket(context: context, type: .reply)
            try socket.set(.linger(0))
            try socket.bind(address)
        } catch {
            finish()
            ready.resume(throwing: error)
            return
        }
        ready.resume()
        serve(socket, authorize: authorize)
        socket.close()
        finish()
    }

    private func serve(_ socket: ZMQSocket, authorize: @Sendable (ZAPRequest) -> ZAPDecision) {
        guard let raw = try? socket.raw("zmq_poll") else { return }
        var items = [
            zmq_pollitem_t(socket: raw, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
            zmq_pollitem_t(socket: nil, fd: wakeup.descriptor, events: Int16(ZMQ_POLLIN), revents: 0),
        ]
        while !state.withLockedValue({ $0.stopping }) {
            if squeeze_zmq_poll(&items, 2, -1) < 0 {
                if squeeze_zmq_errno() == EINTR { continue }
                return  // ETERM: the context is going away
            }
            if items[1].revents != 0 { wakeup.drain() }
            // A REP socket takes one request and must answer it before the next.
            while let request = try? socket.receive() {
                answer(request, on: socket, authorize: authorize)
            }
        }
    }

    private func answer(_ message: ZMQMessage, on socket: ZMQSocket, authorize: @Sendable (ZAPRequest) -> ZAPDecision) {
        let reply: [[UInt8]]
        do {
            let request = try ZAPRequest(frames: message.frames)
            reply = request.reply(authorize(request))
        } catch {
            state.withLockedValue { $0.malformed += 1 }
            reply = ZAPRequest.reply(requestID: error.requestID, status: .internalError, text: "malformed request: \(error.reason)", userID: "")
        }
        // libzmq's ZAP pipes have no high-water mark, so the send does not meet EAGAIN; if it
        // failed anyway, the peer's handshake would time out (ZMQ_HANDSHAKE_IVL) and it retries.
        _ = try? socket.send(ZMQMessage(reply))
    }

    private func finish() {
        state.withLockedValue { $0.stopping = true }
        exit.markExited()
    }
}

import CZeroMQ
import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Owns one libzmq context. `close()` must come after every socket made from it has been closed.
///
/// `@unchecked Sendable`: libzmq documents contexts as thread-safe, and the only mutable state
/// here, whether the context was terminated, sits behind the lock below.
public final class ZMQContext: @unchecked Sendable {
    private let raw: UnsafeMutableRawPointer
    private let closed = NIOLockedValueBox(false)

    /// Creates a context with `ioThreads` libzmq background threads.
    public init(ioThreads: Int32 = 1) throws {
        guard let context = squeeze_zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        if squeeze_zmq_ctx_set(context, ZMQ_IO_THREADS, ioThreads) != 0 {
            let error = ZMQError.last("zmq_ctx_set(ZMQ_IO_THREADS)")
            squeeze_zmq_ctx_term(context)
            throw error
        }
        raw = context
    }

    /// Runs `body` with the live context pointer, or throws ETERM if the context was closed.
    func withHandle<T>(_ body: (UnsafeMutableRawPointer) throws -> T) throws -> T {
        if closed.withLockedValue({ $0 }) { throw ZMQError(operation: "context closed", errno: ETERM) }
        return try body(raw)
    }

    /// Terminates the context. Sockets are closed with linger 0, so this returns promptly once
    /// they are closed; it is idempotent.
    public func close() {
        let first = closed.withLockedValue { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        while squeeze_zmq_ctx_term(raw) != 0 && squeeze_zmq_errno() == EINTR {}
    }

    /// Terminates the context on a thread of its own and waits at most `timeout` for it.
    /// zmq_ctx_term blocks until every socket's linger has run out and libzmq's I/O thread
    /// answers, which can take long when that thread is stuck resolving the name of a peer
    /// that has gone; a process on its way out should not wait for that. Returns whether the
    /// context finished terminating in time.
    public func terminate(timeout: Duration) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = OnceFlag()
            let thread = Thread {
                self.close()
                if once.claim() { continuation.resume(returning: true) }
            }
            thread.name = "zmq-terminate"
            thread.start()
            let (seconds, attoseconds) = timeout.components
            let delay = DispatchTimeInterval.nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
                if once.claim() { continuation.resume(returning: false) }
            }
        }
    }

    deinit {
        close()
    }
}

import CZeroMQ
import Glibc

/// An eventfd that async code writes to wake an endpoint's I/O thread out of `zmq_poll`.
final class WakeupSignal: Sendable {
    /// The eventfd, polled by the I/O thread.
    let descriptor: Int32

    init() throws {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw ZMQError(operation: "eventfd", errno: errno) }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Wakes the poller; the counter saturating is harmless, so EAGAIN is ignored.
    func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(descriptor, $0.baseAddress, 8) }
    }

    /// Resets the counter after a wake-up.
    func drain() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { read(descriptor, $0.baseAddress, 8) }
    }
}

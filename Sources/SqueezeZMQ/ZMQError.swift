import CZeroMQ

/// A failed libzmq call: the operation that failed, its errno and libzmq's text for it.
public struct ZMQError: Error, Sendable, Equatable {
    /// The libzmq call (and context) that failed, for example `zmq_bind(tcp://127.0.0.1:5555)`.
    public let operation: String
    /// The errno reported by `squeeze_zmq_errno()` right after the failure.
    public let errno: Int32

    /// Captures `squeeze_zmq_errno()` for `operation`; call right after the failing libzmq call.
    public static func last(_ operation: String) -> ZMQError {
        ZMQError(operation: operation, errno: squeeze_zmq_errno())
    }

    /// Builds an error from a known errno.
    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// libzmq's description of `errno`.
    public var reason: String {
        guard let text = squeeze_zmq_strerror(errno) else { return "errno \(errno)" }
        return String(cString: text)
    }
}

extension ZMQError: CustomStringConvertible {
    public var description: String { "\(operation): \(reason) (errno \(errno))" }
}

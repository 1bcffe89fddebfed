import CZeroMQ
import Foundation

/// Watches one socket for failed handshakes through libzmq's socket monitor: a PAIR socket
/// connected to the monitor's inproc address. Thread-confined like `ZMQSocket`: made, polled
/// and closed on the watched socket's I/O thread.
final class ZMQHandshakeMonitor {
    private let socket: ZMQSocket
    private let report: @Sendable (ZMQHandshakeFailure) -> Void

    /// Starts monitoring `watched` (before it binds) and connects the reading end.
    init(watching watched: ZMQSocket, context: ZMQContext, report: @escaping @Sendable (ZMQHandshakeFailure) -> Void) throws {
        let address = "inproc://squeeze-monitor-\(UUID().uuidString)"
        let events = ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL
        let raw = try watched.raw("zmq_socket_monitor")
        guard squeeze_zmq_socket_monitor(raw, address, events) == 0 else { throw ZMQError.last("zmq_socket_monitor(\(address))") }
        socket = try ZMQSocket(context: context, type: .pair)
        try socket.set(.linger(0))
        try socket.connect(address)
        self.report = report
    }

    /// The handle to poll for events.
    func pollHandle() throws -> UnsafeMutableRawPointer {
        try socket.raw("zmq_poll(monitor)")
    }

    /// Reports every event waiting. An event is two frames: 6 bytes (u16 event, u32 value,
    /// native byte order) and the endpoint; anything else is skipped.
    func drain() {
        for _ in 0..<256 {
            guard let message = try? socket.receive() else { return }
            guard message.frames.count == 2, message.frames[0].count == 6 else { continue }
            let bytes = Array(message.frames[0])
            let event = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0, as: UInt16.self) }
            let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self) }
            report(ZMQHandshakeFailure(endpoint: String(decoding: Array(message.frames[1]), as: UTF8.self), event: event, value: value))
        }
    }

    /// Closes the reading end; call after the watched socket is closed.
    func close() {
        socket.close()
    }
}

import CZeroMQ

/// One libzmq socket. libzmq sockets are not thread-safe, so this type is deliberately not
/// `Sendable`: it is created, used and closed on the single I/O thread of a `ZMQEndpoint`.
public final class ZMQSocket {
    private var handle: UnsafeMutableRawPointer?

    /// Opens a socket of `type` in `context`.
    public init(context: ZMQContext, type: ZMQSocketType) throws {
        handle = try context.withHandle { ctx in
            guard let raw = zmq_socket(ctx, type.rawValue) else { throw ZMQError.last("zmq_socket") }
            return raw
        }
    }

    deinit {
        close()
    }

    /// The live handle, or ENOTSOCK once closed.
    /// The handle for `zmq_poll`; only valid on the owning thread while the socket is open.
    func raw(_ operation: @autoclosure () -> String) throws -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQError(operation: operation(), errno: ENOTSOCK) }
        return handle
    }

    /// Closes the socket; idempotent.
    public func close() {
        guard let handle else { return }
        zmq_close(handle)
        self.handle = nil
    }

    /// Sets one option.
    public func set(_ option: ZMQSocketOption) throws {
        let socket = try raw("zmq_setsockopt(\(option.name))")
        let rc: Int32
        switch option {
        case .linger(let value): rc = Self.setInt(socket, ZMQ_LINGER, value)
        case .sendHighWaterMark(let value): rc = Self.setInt(socket, ZMQ_SNDHWM, value)
        case .receiveHighWaterMark(let value): rc = Self.setInt(socket, ZMQ_RCVHWM, value)
        case .routerMandatory(let on): rc = Self.setInt(socket, ZMQ_ROUTER_MANDATORY, on ? 1 : 0)
        case .immediate(let on): rc = Self.setInt(socket, ZMQ_IMMEDIATE, on ? 1 : 0)
        case .reconnectInterval(let value): rc = Self.setInt(socket, ZMQ_RECONNECT_IVL, value)
        case .reconnectIntervalMax(let value): rc = Self.setInt(socket, ZMQ_RECONNECT_IVL_MAX, value)
        case .maxMessageSize(let value):
            var value = value
            rc = zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &value, MemoryLayout<Int64>.size)
        case .routingID(let bytes):
            rc = bytes.withUnsafeBytes { zmq_setsockopt(socket, ZMQ_ROUTING_ID, $0.baseAddress, $0.count) }
        }
        if rc != 0 { throw ZMQError.last("zmq_setsockopt(\(option.name))") }
    }

    private static func setInt(_ socket: UnsafeMutableRawPointer, _ name: Int32, _ value: Int32) -> Int32 {
        var value = value
        return zmq_setsockopt(socket, name, &value, MemoryLayout<Int32>.size)
    }

    /// Binds to `endpoint` (`tcp://127.0.0.1:*` picks a free port; see `lastEndpoint`).
    public func bind(_ endpoint: String) throws {
        let socket = try raw("zmq_bind(\(endpoint))")
        if zmq_bind(socket, endpoint) != 0 { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Connects to `endpoint`; libzmq reconnects in the background.
    public func connect(_ endpoint: String) throws {
        let socket = try raw("zmq_connect(\(endpoint))")
        if zmq_connect(socket, endpoint) != 0 { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// The endpoint most recently bound, with the port libzmq chose.
    public func lastEndpoint() throws -> String {
        let socket = try raw("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        let rc = buffer.withUnsafeMutableBytes { zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, $0.baseAddress, &size) }
        if rc != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_LAST_ENDPOINT)") }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a message can be read without blocking.
    public func hasIncoming() throws -> Bool {
        let socket = try raw("zmq_getsockopt(ZMQ_EVENTS)")
        var events: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if zmq_getsockopt(socket, ZMQ_EVENTS, &events, &size) != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_EVENTS)") }
        return events & Int32(ZMQ_POLLIN) != 0
    }

    /// Sends all frames as one multipart message without blocking. Returns false when the
    /// peer's queue is full (EAGAIN): multipart delivery is atomic, so nothing was sent.
    public func send(_ message: ZMQMessage) throws -> Bool {
        let socket = try raw("zmq_send")
        let last = message.frames.count - 1
        for (index, frame) in message.frames.enumerated() {
            let flags = ZMQ_DONTWAIT | (index < last ? ZMQ_SNDMORE : 0)
            while true {
                let rc = frame.withUnsafeBytes { zmq_send(socket, $0.baseAddress, $0.count, flags) }
                if rc >= 0 { break }
                let error = zmq_errno()
                if error == EINTR { continue }
                if error == EAGAIN && index == 0 { return false }
                throw ZMQError(operation: "zmq_send(frame \(index))", errno: error)
            }
        }
        return true
    }

    /// Receives one multipart message, or nil when none is waiting.
    public func receive() throws -> ZMQMessage? {
        let socket = try raw("zmq_msg_recv")
        var frames: [[UInt8]] = []
        var part = zmq_msg_t()
        guard zmq_msg_init(&part) == 0 else { throw ZMQError.last("zmq_msg_init") }
        defer { zmq_msg_close(&part) }
        while true {
            let rc = zmq_msg_recv(&part, socket, frames.isEmpty ? ZMQ_DONTWAIT : 0)
            if rc < 0 {
                let error = zmq_errno()
                if error == EINTR { continue }
                if error == EAGAIN && frames.isEmpty { return nil }
                throw ZMQError(operation: "zmq_msg_recv", errno: error)
            }
            let size = zmq_msg_size(&part)
            if size == 0 {
                frames.append([])
            } else if let data = zmq_msg_data(&part) {
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            } else {
                throw ZMQError(operation: "zmq_msg_data", errno: EFAULT)
            }
            if zmq_msg_more(&part) == 0 { return ZMQMessage(frames) }
        }
    }
}

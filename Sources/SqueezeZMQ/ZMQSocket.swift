import CSqueezeSystem
import CZeroMQ

/// One libzmq socket. libzmq sockets are not thread-safe, so this type is deliberately not
/// `Sendable`: it is created, used and closed on the single I/O thread of a `ZMQEndpoint`.
public final class ZMQSocket {
    private var handle: UnsafeMutableRawPointer?

    /// Opens a socket of `type` in `context`.
    public init(context: ZMQContext, type: ZMQSocketType) throws {
        handle = try context.withHandle { ctx in
            guard let raw = squeeze_zmq_socket(ctx, type.rawValue) else { throw ZMQError.last("zmq_socket") }
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
        squeeze_zmq_close(handle)
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
            rc = squeeze_zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &value, MemoryLayout<Int64>.size)
        case .routingID(let bytes): rc = Self.setBytes(socket, ZMQ_ROUTING_ID, bytes)
        case .curveServer(let on): rc = Self.setInt(socket, ZMQ_CURVE_SERVER, on ? 1 : 0)
        case .curvePublicKey(let key): rc = Self.setBytes(socket, ZMQ_CURVE_PUBLICKEY, key.bytes)
        case .curveSecretKey(let key): rc = Self.setBytes(socket, ZMQ_CURVE_SECRETKEY, key.bytes)
        case .curveServerKey(let key): rc = Self.setBytes(socket, ZMQ_CURVE_SERVERKEY, key.bytes)
        case .zapDomain(let domain): rc = Self.setBytes(socket, ZMQ_ZAP_DOMAIN, Array(domain.utf8))
        }
        if rc != 0 { throw ZMQError.last("zmq_setsockopt(\(option.name))") }
    }

    private static func setInt(_ socket: UnsafeMutableRawPointer, _ name: Int32, _ value: Int32) -> Int32 {
        var value = value
        return squeeze_zmq_setsockopt(socket, name, &value, MemoryLayout<Int32>.size)
    }

    private static func setBytes(_ socket: UnsafeMutableRawPointer, _ name: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { squeeze_zmq_setsockopt(socket, name, $0.baseAddress, $0.count) }
    }

    /// Binds to `endpoint` (`tcp://127.0.0.1:*` picks a free port; see `lastEndpoint`).
    public func bind(_ endpoint: String) throws {
        let socket = try raw("zmq_bind(\(endpoint))")
        if squeeze_zmq_bind(socket, endpoint) != 0 { throw ZMQError.last("zmq_bind(\(endpoint))") }
    }

    /// Connects to `endpoint`; libzmq reconnects in the background.
    public func connect(_ endpoint: String) throws {
        let socket = try raw("zmq_connect(\(endpoint))")
        if squeeze_zmq_connect(socket, endpoint) != 0 { throw ZMQError.last("zmq_connect(\(endpoint))") }
    }

    /// The endpoint most recently bound, with the port libzmq chose.
    public func lastEndpoint() throws -> String {
        let socket = try raw("zmq_getsockopt(ZMQ_LAST_ENDPOINT)")
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        let rc = buffer.withUnsafeMutableBytes { squeeze_zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, $0.baseAddress, &size) }
        if rc != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_LAST_ENDPOINT)") }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a message can be read without blocking.
    public func hasIncoming() throws -> Bool {
        let socket = try raw("zmq_getsockopt(ZMQ_EVENTS)")
        var events: Int32 = 0
        var size = MemoryLayout<Int32>.size
        if squeeze_zmq_getsockopt(socket, ZMQ_EVENTS, &events, &size) != 0 { throw ZMQError.last("zmq_getsockopt(ZMQ_EVENTS)") }
        return events & Int32(ZMQ_POLLIN) != 0
    }

    /// Sends all frames as one multipart message without blocking. Returns false when the
    /// peer's queue is full (EAGAIN): multipart delivery is atomic, so nothing was sent.
    /// Array frames are copied into libzmq's messages; frames over `FrameBytes` are not.
    public func send(_ message: ZMQMessage) throws -> Bool {
        let socket = try raw("zmq_msg_send")
        let last = message.frames.count - 1
        for (index, frame) in message.frames.enumerated() {
            let flags = ZMQ_DONTWAIT | (index < last ? ZMQ_SNDMORE : 0)
            var part = zmq_msg_t()
            try Self.initialize(&part, with: frame, index: index)
            while true {
                if squeeze_zmq_msg_send(&part, socket, flags) >= 0 { break }  // libzmq owns the message now
                let error = squeeze_zmq_errno()
                if error == EINTR { continue }
                // Still ours: closing it runs the free callback, which drops the retain.
                squeeze_zmq_msg_close(&part)
                if error == EAGAIN && index == 0 { return false }
                throw ZMQError(operation: "zmq_msg_send(frame \(index))", errno: error)
            }
        }
        return true
    }

    /// Makes `part` a message for `frame`: a copy of an array frame, or a message over a shared
    /// frame's bytes that holds a retain of them until libzmq calls the free function.
    private static func initialize(_ part: inout zmq_msg_t, with frame: ZMQFrame, index: Int) throws {
        guard let (bytes, offset) = frame.shared, frame.count > 0, let address = bytes.address(at: offset) else {
            guard squeeze_zmq_msg_init_size(&part, frame.count) == 0 else { throw ZMQError.last("zmq_msg_init_size(frame \(index))") }
            if frame.count > 0, let data = squeeze_zmq_msg_data(&part) {
                frame.withUnsafeBytes { raw in
                    if let source = raw.baseAddress { data.copyMemory(from: source, byteCount: raw.count) }
                }
            }
            return
        }
        let retained = Unmanaged.passRetained(bytes)
        let rc = squeeze_zmq_msg_init_data(&part, address, frame.count, { _, hint in
            // libzmq is done with the bytes (sent, dropped, or closed after a failed send).
            guard let hint else { return }
            Unmanaged<FrameBytes>.fromOpaque(hint).release()
        }, retained.toOpaque())
        guard rc == 0 else {
            // libzmq did not take the message (ENOMEM), so it will never call the free function.
            let error = ZMQError.last("zmq_msg_init_data(frame \(index))")
            retained.release()
            throw error
        }
    }

    /// Received frames shorter than this are copied into arrays and their messages closed at
    /// once; longer ones are kept as the libzmq message and read in place. libzmq receives a
    /// frame shorter than its 8 KiB batch buffer into a buffer shared with its neighbours,
    /// which keeping it would pin; a longer frame gets memory of its own.
    static let copiedFrameLimit = 8192

    /// Receives one multipart message, or nil when none is waiting.
    public func receive() throws -> ZMQMessage? {
        guard case .message(let message)? = try receive(within: nil) else { return nil }
        return message
    }

    /// Receives one multipart message, or nil when none is waiting, holding it to `limit` (nil:
    /// no bound) frame by frame. A message that goes past its bound is still read to its end, so
    /// the next one starts where it should, but nothing of it is kept beyond its leading frames:
    /// the frames taken so far are let go, and each later frame is closed as soon as it is read.
    public func receive(within limit: ZMQReceiveLimit?) throws -> ZMQIncoming? {
        let socket = try raw("zmq_msg_recv")
        var frames: [ZMQFrame] = []
        var userID: String?
        var peerAddress: String?
        var sourceDescriptor: Int32?
        // Every frame read, kept or not, and their bytes.
        var count = 0
        var bytes = 0
        // Decided once the leading frames are in; set `dropped` once the message goes past it.
        var bound: ZMQMessageBound?
        var dropped: ZMQDroppedMessage?
        // While a message is dropped, the memory its frames free goes back to the kernel as it
        // is freed, arenas' tops included (see `ZMQReceiveLimit.trimAfterBytes`).
        var releasing = false
        defer { if releasing { squeeze_release_freed_end() } }
        // Heap-allocated: a kept frame's bytes live in it until its `FrameBytes` goes.
        var part = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        part.initialize(to: zmq_msg_t())
        guard squeeze_zmq_msg_init(part) == 0 else {
            part.deallocate()
            throw ZMQError.last("zmq_msg_init")
        }
        defer {
            squeeze_zmq_msg_close(part)
            part.deallocate()
        }
        while true {
            let rc = squeeze_zmq_msg_recv(part, socket, count == 0 ? ZMQ_DONTWAIT : 0)
            if rc < 0 {
                let error = squeeze_zmq_errno()
                if error == EINTR { continue }
                if error == EAGAIN && count == 0 { return nil }
                throw ZMQError(operation: "zmq_msg_recv", errno: error)
            }
            let more = squeeze_zmq_msg_more(part) != 0
            let size = squeeze_zmq_msg_size(part)
            count += 1
            bytes = size > Int.max - bytes ? Int.max : bytes + size
            if dropped == nil, let limit {
                if bound == nil, size > limit.leadingFrameBytes {
                    dropped = ZMQDroppedMessage(leading: frames, frames: count, bytes: bytes, bound: nil)
                } else if let bound, !bound.admits(frames: count, bytes: bytes) {
                    dropped = ZMQDroppedMessage(leading: Array(frames.prefix(limit.leadingFrames)), frames: count, bytes: bytes, bound: bound)
                }
                if dropped != nil {
                    squeeze_release_freed_begin()
                    releasing = true
                    frames.removeAll()
                }
            }
            if dropped != nil {
                // Not kept: its memory goes back now, not when the next frame is read into it.
                squeeze_zmq_msg_close(part)
                guard squeeze_zmq_msg_init(part) == 0 else { throw ZMQError.last("zmq_msg_init") }
            } else {
                // Frames from the wire carry the connection's metadata (a ROUTER's routing-id
                // frame does not), so the first two are asked. NULL (EINVAL) without ZAP.
                if frames.count < 2 {
                    if userID == nil, let value = squeeze_zmq_msg_gets(part, "User-Id") {
                        let id = String(cString: value)
                        if !id.isEmpty { userID = id }
                    }
                    if peerAddress == nil, let value = squeeze_zmq_msg_gets(part, "Peer-Address") {
                        let address = String(cString: value)
                        if !address.isEmpty { peerAddress = address }
                    }
                    if sourceDescriptor == nil {
                        let descriptor = squeeze_zmq_msg_get(part, ZMQ_SRCFD)
                        if descriptor >= 0 { sourceDescriptor = descriptor }
                    }
                }
                frames.append(try Self.frame(taking: &part, size: size))
                if let limit, bound == nil, frames.count == limit.leadingFrames || !more {
                    let decided = limit.bound(frames)
                    bound = decided
                    if !decided.admits(frames: count, bytes: bytes) {
                        dropped = ZMQDroppedMessage(leading: frames, frames: count, bytes: bytes, bound: decided)
                        squeeze_release_freed_begin()
                        releasing = true
                        frames.removeAll()
                    }
                }
            }
            if !more {
                if var dropped {
                    dropped.frames = count
                    dropped.bytes = bytes
                    return .dropped(dropped)
                }
                var message = ZMQMessage(frames)
                message.userID = userID
                message.peerAddress = peerAddress
                message.sourceDescriptor = sourceDescriptor
                return .message(message)
            }
        }
    }

    /// The frame in `part`, just received: a copy of a short one (the message stays for the
    /// next frame), or a long one that takes the message over (`part` is then a fresh one).
    private static func frame(taking part: inout UnsafeMutablePointer<zmq_msg_t>, size: Int) throws -> ZMQFrame {
        guard size >= copiedFrameLimit else {
            if size == 0 { return ZMQFrame([]) }
            guard let data = squeeze_zmq_msg_data(part) else { throw ZMQError(operation: "zmq_msg_data", errno: EFAULT) }
            return ZMQFrame(Array(UnsafeRawBufferPointer(start: data, count: size)))
        }
        guard squeeze_zmq_msg_data(part) != nil else { throw ZMQError(operation: "zmq_msg_data", errno: EFAULT) }
        let next = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        next.initialize(to: zmq_msg_t())
        guard squeeze_zmq_msg_init(next) == 0 else {
            next.deallocate()
            throw ZMQError.last("zmq_msg_init")
        }
        let frame = ZMQFrame(FrameBytes(receivedMessage: part))
        part = next
        return frame
    }
}

import CZeroMQ

/// Immutable bytes that frames point into: a buffer filled once (from a `FrameBufferPool`, or
/// copied) or the data of a received libzmq message. The memory stays valid and unchanged as
/// long as the object lives, and is released exactly once, in `deinit`: given back to its pool,
/// deallocated, or closed with `zmq_msg_close`.
///
/// Sending a frame over these bytes hands libzmq a pointer, not a copy (`zmq_msg_init_data`):
/// the message keeps a retain of this object, which libzmq's free callback drops when it is
/// done with the bytes (on its own I/O thread, or in `zmq_msg_close` on a failed send).
///
/// `@unchecked Sendable`: the only stored state is set in `init` and never written again; the
/// bytes are written only before `init` returns (by the pool's fill closure, or by libzmq
/// before `zmq_msg_recv` returned), so any number of threads may read them. The release in
/// `deinit` runs once, after the last reference is gone.
public final class FrameBytes: @unchecked Sendable {
    /// Where the memory came from, which says how to release it.
    enum Origin {
        /// A pool's buffer of `capacity` bytes, given back to the pool.
        case pooled(FrameBufferPool, capacity: Int)
        /// Allocated for this object alone, deallocated.
        case allocated
        /// A received message (heap-allocated `zmq_msg_t`), closed and deallocated.
        case message(UnsafeMutablePointer<zmq_msg_t>)
    }

    /// The first byte; nil only when `count` is 0.
    @usableFromInline let base: UnsafeMutableRawPointer?
    /// How many bytes are valid from `base`.
    public let count: Int
    private let origin: Origin

    /// Takes ownership of `base` (released according to `origin`).
    init(base: UnsafeMutableRawPointer?, count: Int, origin: Origin) {
        precondition(count >= 0 && (count == 0 || base != nil), "frame bytes without memory")
        self.base = base
        self.count = count
        self.origin = origin
    }

    /// Copies `bytes` into memory of their own (for tests and small one-off frames; the hot
    /// paths fill pooled buffers or keep received messages instead).
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0, let source = bytes.baseAddress else {
            self.init(base: nil, count: 0, origin: .allocated)
            return
        }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        memory.copyMemory(from: source, byteCount: bytes.count)
        self.init(base: memory, count: bytes.count, origin: .allocated)
    }

    /// Takes over a received message: its data is read in place and the message is closed
    /// when this object goes. `message` must have been allocated with `allocate(capacity: 1)`.
    convenience init(receivedMessage message: UnsafeMutablePointer<zmq_msg_t>) {
        let count = squeeze_zmq_msg_size(message)
        self.init(base: count > 0 ? squeeze_zmq_msg_data(message) : nil, count: count, origin: .message(message))
    }

    deinit {
        switch origin {
        case .pooled(let pool, let capacity):
            if let base { pool.giveBack(base, capacity: capacity) }
        case .allocated:
            base?.deallocate()
        case .message(let message):
            squeeze_zmq_msg_close(message)
            message.deinitialize(count: 1)
            message.deallocate()
        }
    }

    /// Runs `body` with the bytes; the pointer must not escape it. Inlinable: decoders read
    /// every field through it, and an unspecialized generic call costs a metadata lookup each.
    @inlinable
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The address of byte `offset`, for `zmq_msg_init_data`; valid while this object lives.
    func address(at offset: Int) -> UnsafeMutableRawPointer? {
        base.map { $0 + offset }
    }
}

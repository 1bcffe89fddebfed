/// One multipart ZeroMQ message. On a ROUTER the first frame is the peer's routing id.
public struct ZMQMessage: Sendable, Equatable {
    /// The frames, in order.
    public var frames: [[UInt8]]

    /// Wraps `frames`.
    public init(_ frames: [[UInt8]]) {
        self.frames = frames
    }

    /// Total payload bytes over all frames.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.count } }
}

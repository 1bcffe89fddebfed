/// One multipart ZeroMQ message. On a ROUTER the first frame is the peer's routing id.
public struct ZMQMessage: Sendable, Equatable {
    /// The frames, in order.
    public var frames: [ZMQFrame]
    /// On a received message, the peer's ZAP user id (the name the ZAP handler gave its CURVE
    /// key); nil without ZAP and on messages built here.
    public var userID: String?
    /// On a received message over TCP, the peer's IP address as libzmq saw the connection
    /// (`Peer-Address`); nil over other transports and on messages built here. Unlike
    /// anything inside the frames, the peer cannot choose it.
    public var peerAddress: String?
    /// On a received message over TCP, the descriptor of the connection libzmq read it from
    /// (`ZMQ_SRCFD`): valid while the connection lasts (libzmq closes it, and may reuse the
    /// number, once the peer goes), so it is read at once or not at all. Nil otherwise.
    public var sourceDescriptor: Int32?

    /// Wraps `frames`.
    public init(_ frames: [ZMQFrame]) {
        self.frames = frames
    }

    /// A message of array frames.
    public init(_ frames: [[UInt8]]) {
        self.frames = frames.map(ZMQFrame.init)
    }

    /// Total payload bytes over all frames.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.count } }
}

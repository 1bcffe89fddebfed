/// An incoming message dropped while it was read because it went past its bound
/// (`ZMQReceiveLimit`): what is left of it. None of its other frames was kept.
public struct ZMQDroppedMessage: Sendable, Equatable {
    /// Its first frames, as `ZMQReceiveLimit.bound` saw them (a ROUTER's routing id first).
    /// When one of them was longer than `leadingFrameBytes`, the frames before it.
    public var leading: [ZMQFrame]
    /// How many frames it had, leading ones included.
    public var frames: Int
    /// How many bytes it had over all frames (saturating at `Int.max`).
    public var bytes: Int
    /// The bound it went past; nil when a leading frame was too long for one to be decided.
    public var bound: ZMQMessageBound?

    /// A record of a dropped message.
    public init(leading: [ZMQFrame], frames: Int, bytes: Int, bound: ZMQMessageBound?) {
        self.leading = leading
        self.frames = frames
        self.bytes = bytes
        self.bound = bound
    }
}

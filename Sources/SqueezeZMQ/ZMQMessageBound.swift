/// The most one incoming message may hold: how many frames, and how many bytes over all of
/// them. `ZMQReceiveLimit` decides one per message from its first frames.
public struct ZMQMessageBound: Sendable, Hashable {
    /// Most frames.
    public var frames: Int
    /// Most bytes, over all frames.
    public var bytes: Int

    /// A bound of `frames` frames and `bytes` bytes (negative values count as 0).
    public init(frames: Int, bytes: Int) {
        self.frames = max(0, frames)
        self.bytes = max(0, bytes)
    }

    /// No message at all: one held to this bound is dropped, whatever it holds.
    public static let nothing = ZMQMessageBound(frames: 0, bytes: 0)

    /// Whether a message of `frames` frames and `bytes` bytes fits.
    public func admits(frames: Int, bytes: Int) -> Bool {
        frames <= self.frames && bytes <= self.bytes
    }

    /// This bound with `frames` more frames of `bytes` more bytes in all (a ROUTER's routing id
    /// in front of a protocol message, say). Saturates instead of overflowing.
    public func adding(frames: Int, bytes: Int) -> ZMQMessageBound {
        let (moreFrames, framesOverflow) = self.frames.addingReportingOverflow(max(0, frames))
        let (moreBytes, bytesOverflow) = self.bytes.addingReportingOverflow(max(0, bytes))
        return ZMQMessageBound(frames: framesOverflow ? .max : moreFrames, bytes: bytesOverflow ? .max : moreBytes)
    }
}

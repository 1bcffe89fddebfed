import SqueezeProtocol
import SqueezeZMQ

/// The tests build, cut and mutate frames as byte arrays; these convert at the codec's edge.
extension WireCodec {
    /// `encode`, as byte arrays.
    static func encodeBytes(_ message: WireMessage, correlation: UInt64 = 0) -> [[UInt8]] {
        // Through the raw buffer: `Array(frame)` copies a frame byte by byte on this toolchain.
        encode(message, correlation: correlation).map { frame in frame.withUnsafeBytes { Array($0) } }
    }

    /// `decode` of frames given as byte arrays.
    static func decode<Frames: Collection<[UInt8]>>(_ frames: Frames) throws(ProtocolError) -> WireEnvelope {
        try decode(frames.map { ZMQFrame($0) })
    }
}

import SqueezeZMQ

/// The fixed 16-byte first frame of every message:
/// magic "SQ", version, type, 8-byte correlation id, 4 reserved bytes (zero).
public struct MessageHeader: Sendable, Equatable {
    /// What the rest of the frames mean.
    public var type: MessageType
    /// Ties a reply to its request; 0 when the message is not part of an exchange.
    public var correlation: UInt64

    /// A header for `type`.
    public init(type: MessageType, correlation: UInt64 = 0) {
        self.type = type
        self.correlation = correlation
    }

    /// The encoded frame.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: ProtocolLimits.headerSize)
        writer.write([0x53, 0x51, ProtocolLimits.version, type.rawValue])
        writer.write(correlation)
        writer.write(UInt32(0))
        return writer.bytes
    }

    /// Decodes a header frame.
    public init(decoding frame: ZMQFrame) throws(ProtocolError) {
        guard frame.count >= 4 else { throw .truncated("header") }
        guard frame[0] == 0x53, frame[1] == 0x51 else { throw .badMagic }
        guard frame[2] == ProtocolLimits.version else { throw .unsupportedVersion(frame[2]) }
        guard let type = MessageType(rawValue: frame[3]) else { throw .unknownType(frame[3]) }
        guard frame.count >= ProtocolLimits.headerSize else { throw .truncated("header") }
        guard frame.count == ProtocolLimits.headerSize else {
            throw .oversized("header", size: frame.count, limit: ProtocolLimits.headerSize)
        }
        var reader = ByteReader(frame)
        _ = try reader.readBytes(4, "header")
        self.type = type
        self.correlation = try reader.read(UInt64.self, "correlation id")
    }
}

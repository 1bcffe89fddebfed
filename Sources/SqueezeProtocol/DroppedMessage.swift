import SqueezeZMQ

/// A message a receive limit dropped (`ZMQDroppedMessage`, `ProtocolReceiveLimits`), read in the
/// protocol's terms: what it was, and whether it could have been taken from anyone.
public struct DroppedMessage: Sendable {
    /// Its header, when its leading frames held one that decodes.
    public let header: MessageHeader?
    /// Why no receiver takes it: its header's defect, or more frames or bytes than its type
    /// allows. Nil when it fit its type's bound: then it was dropped for where it came, or from
    /// whom (a type this socket does not receive, or not before registering), which the
    /// receiver words.
    public let defect: ProtocolError?

    /// Reads `dropped`; `routed` when its first frame is a ROUTER's routing id.
    public init(_ dropped: ZMQDroppedMessage, routed: Bool) {
        let headerIndex = routed ? 1 : 0
        guard dropped.leading.count > headerIndex else {
            header = nil
            // No bound was decided: the frame where the header belongs was too long to be one.
            defect = dropped.bound == nil
                ? .malformed("a header frame longer than \(ProtocolReceiveLimits.leadingFrameBytes) bytes") : .empty
            return
        }
        let decoded: MessageHeader
        do {
            decoded = try MessageHeader(decoding: dropped.leading[headerIndex])
        } catch {
            header = nil
            defect = error
            return
        }
        header = decoded
        let bound = decoded.type.bound
        let frames = dropped.frames - headerIndex
        let bytes = dropped.bytes - (routed ? dropped.leading[0].count : 0)
        if frames > bound.frames {
            defect = .tooMany("frames of a \(decoded.type)", count: frames, limit: bound.frames)
        } else if bytes > bound.bytes {
            defect = .oversized("\(decoded.type) message", size: bytes, limit: bound.bytes)
        } else {
            defect = nil
        }
    }
}

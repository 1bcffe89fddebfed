import SqueezeProtocol
import SqueezeZMQ

/// The workers' endpoint answers a worker's `heartbeat` on its I/O thread, before the message
/// joins the events the actor works through: however much work is queued (a flood of jobs),
/// a worker that asks hears from the coordinator at once, and does not take a busy coordinator
/// for a lost one. The heartbeat still reaches the core, for liveness and `unknownPeer`.
enum HeartbeatReflex {
    /// The answer to `message` when it is a heartbeat (routing frame and a bare header).
    @Sendable static func answer(_ message: ZMQMessage) -> ZMQMessage? {
        guard message.frames.count == 2, message.frames[1].count == ProtocolLimits.headerSize,
              let header = try? MessageHeader(decoding: message.frames[1]), header.type == .heartbeat else { return nil }
        return ZMQMessage([message.frames[0]] + WireCodec.encode(.heartbeat))
    }
}

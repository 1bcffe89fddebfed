import SqueezeProtocol
import SqueezeZMQ

/// A message one of the coordinator's ROUTER sockets received: the peer it came from (its
/// routing frame) and what the rest decodes to, or why it does not.
struct RoutedMessage {
    /// The sender; empty when the message had no frame at all.
    let peer: PeerID
    /// The decoded message, or the error that refused it (`ProtocolError.empty` without a body).
    let envelope: Result<WireEnvelope, any Error>
    /// For a message that did not decode, what its header says it is (when that decodes).
    let type: MessageType?

    /// Splits and decodes `message`.
    init(_ message: ZMQMessage) {
        peer = PeerID(sender: message)
        guard message.frames.count >= 2 else {
            envelope = .failure(ProtocolError.empty)
            type = nil
            return
        }
        let envelope = Result<WireEnvelope, any Error> { try WireCodec.decode(message.frames.dropFirst()) }
        self.envelope = envelope
        if case .failure = envelope {
            type = try? MessageHeader(decoding: message.frames[1]).type
        } else {
            type = nil
        }
    }
}

extension PeerID {
    /// The peer a ROUTER's message came from or was going to: its first frame.
    init(sender message: ZMQMessage) {
        self.init(message.frames.first.map(Array.init) ?? [])
    }

    /// The peer a ROUTER's dropped message came from: its first leading frame.
    init(sender dropped: ZMQDroppedMessage) {
        self.init(dropped.leading.first.map(Array.init) ?? [])
    }
}

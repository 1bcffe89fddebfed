/// What `ZMQSocket.receive(within:)` read: a whole message, or the record of one it dropped.
public enum ZMQIncoming: Sendable {
    /// A message within its bound (or read without one).
    case message(ZMQMessage)
    /// A message that went past its bound; its frames were not kept.
    case dropped(ZMQDroppedMessage)
}

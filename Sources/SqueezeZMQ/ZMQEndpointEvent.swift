/// What an endpoint's I/O thread reports to async code.
public enum ZMQEndpointEvent: Sendable {
    /// An incoming message that was not the reply to a pending request.
    case message(ZMQMessage)
    /// A message that could not be sent (EHOSTUNREACH for an unknown ROUTER peer, EAGAIN at the
    /// high-water mark). It was not delivered; the owner decides whether to retry.
    case sendFailed(ZMQMessage, ZMQError)
    /// The endpoint's clock (`ZMQEndpointConfiguration.tickInterval`): time for the owner's
    /// periodic work. At most one waits in the inbox at a time.
    case tick
    /// An incoming message that went past its bound (`ZMQEndpointConfiguration.receiveLimit`):
    /// it was read to its end and dropped without being kept.
    case dropped(ZMQDroppedMessage)
}

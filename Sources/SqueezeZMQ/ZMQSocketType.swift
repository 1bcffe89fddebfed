import CZeroMQ

/// The socket patterns Squeeze uses.
public enum ZMQSocketType: Sendable {
    /// Coordinator side of both endpoints: addresses peers by routing id.
    case router
    /// Worker and client side: asynchronous request/reply without lockstep.
    case dealer
    /// Used by tests and simple pipes.
    case pair

    var rawValue: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .pair: ZMQ_PAIR
        }
    }
}

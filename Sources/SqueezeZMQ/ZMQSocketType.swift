import CZeroMQ

/// The socket patterns Squeeze uses.
public enum ZMQSocketType: Sendable {
    /// Coordinator side of both endpoints: addresses peers by routing id.
    case router
    /// Worker and client side: asynchronous request/reply without lockstep.
    case dealer
    /// Used by tests and simple pipes.
    case pair
    /// The ZAP handler's side of libzmq's authentication requests.
    case reply
    /// Sends requests to a `reply` socket (tests of the ZAP handler).
    case request

    var rawValue: Int32 {
        switch self {
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .pair: ZMQ_PAIR
        case .reply: ZMQ_REP
        case .request: ZMQ_REQ
        }
    }
}

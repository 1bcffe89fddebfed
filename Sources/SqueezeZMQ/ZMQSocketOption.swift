import CZeroMQ

/// Socket options Squeeze sets deliberately (see docs/protocol.md for the values used).
public enum ZMQSocketOption: Sendable {
    /// Milliseconds to keep unsent messages after close; Squeeze uses 0.
    case linger(Int32)
    /// Outgoing queue limit in messages per peer.
    case sendHighWaterMark(Int32)
    /// Incoming queue limit in messages per peer.
    case receiveHighWaterMark(Int32)
    /// Largest accepted inbound frame in bytes: libzmq checks each frame, not a whole message,
    /// and drops the connection of a peer that sends a larger one (`tcp://` only).
    case maxMessageSize(Int64)
    /// ROUTER: fail with EHOSTUNREACH instead of silently dropping unroutable messages.
    case routerMandatory(Bool)
    /// DEALER: the identity a ROUTER peer sees.
    case routingID([UInt8])
    /// Queue messages only to completed connections.
    case immediate(Bool)
    /// First reconnect delay in milliseconds.
    case reconnectInterval(Int32)
    /// Upper bound of the exponential reconnect backoff in milliseconds.
    case reconnectIntervalMax(Int32)
    /// Makes the socket a CURVE server (it needs `curveSecretKey` too).
    case curveServer(Bool)
    /// This socket's CURVE public key (clients).
    case curvePublicKey(CurveKey)
    /// This socket's CURVE secret key (clients and servers).
    case curveSecretKey(CurveKey)
    /// The public key of the CURVE server a client connects to.
    case curveServerKey(CurveKey)
    /// The ZAP domain a server's authentication requests carry.
    case zapDomain(String)

    var name: String {
        switch self {
        case .linger: "ZMQ_LINGER"
        case .sendHighWaterMark: "ZMQ_SNDHWM"
        case .receiveHighWaterMark: "ZMQ_RCVHWM"
        case .maxMessageSize: "ZMQ_MAXMSGSIZE"
        case .routerMandatory: "ZMQ_ROUTER_MANDATORY"
        case .routingID: "ZMQ_ROUTING_ID"
        case .immediate: "ZMQ_IMMEDIATE"
        case .reconnectInterval: "ZMQ_RECONNECT_IVL"
        case .reconnectIntervalMax: "ZMQ_RECONNECT_IVL_MAX"
        case .curveServer: "ZMQ_CURVE_SERVER"
        case .curvePublicKey: "ZMQ_CURVE_PUBLICKEY"
        case .curveSecretKey: "ZMQ_CURVE_SECRETKEY"
        case .curveServerKey: "ZMQ_CURVE_SERVERKEY"
        case .zapDomain: "ZMQ_ZAP_DOMAIN"
        }
    }
}

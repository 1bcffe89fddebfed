import SqueezeZMQ

/// CURVE on both coordinator endpoints, with the allow-list a ZAP handler checks.
public struct CoordinatorSecurity: Sendable {
    /// The coordinator's key pair.
    public var keys: CurveServerKeys
    /// Who may connect, workers and clients alike.
    public var authorized: AuthorizedKeys

    /// The options that make the `domain` endpoint (`clients`, `workers`) a CURVE server
    /// whose refused handshakes are counted.
    func endpointOptions(domain: String) -> (options: [ZMQSocketOption], handshakeFailures: @Sendable (ZMQHandshakeFailure) -> Void) {
        let authorized = authorized
        return (keys.socketOptions(domain: domain), { authorized.handshakeFailed($0, endpoint: domain) })
    }

    /// Security from the coordinator's keys and its allow-list.
    public init(keys: CurveServerKeys, authorized: AuthorizedKeys) {
        self.keys = keys
        self.authorized = authorized
    }
}

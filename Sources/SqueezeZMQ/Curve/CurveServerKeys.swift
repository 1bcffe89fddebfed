/// What a CURVE server socket needs: its key pair. Who may connect is decided by the ZAP
/// handler of the socket's context (`ZAPHandler`); the ZAP domain tells it which socket asks.
public struct CurveServerKeys: Sendable, Equatable {
    /// The server's key pair; clients are given its public key.
    public var own: CurveKeyPair

    /// The keys of one server.
    public init(own: CurveKeyPair) {
        self.own = own
    }

    /// The socket options that make a socket a CURVE server whose ZAP requests carry
    /// `domain`; set before it binds.
    public func socketOptions(domain: String) -> [ZMQSocketOption] {
        [.curveServer(true), .curveSecretKey(own.secretKey), .zapDomain(domain)]
    }
}

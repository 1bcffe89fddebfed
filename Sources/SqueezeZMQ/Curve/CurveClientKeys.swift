/// What a CURVE client socket needs: its own key pair, and the public key of the server it
/// expects (libzmq refuses a server that cannot prove it holds that key's secret).
public struct CurveClientKeys: Sendable, Equatable {
    /// This client's key pair; the server's allow-list must hold its public key.
    public var own: CurveKeyPair
    /// The server's public key.
    public var server: CurveKey

    /// The keys of one client.
    public init(own: CurveKeyPair, server: CurveKey) {
        self.own = own
        self.server = server
    }

    /// The socket options that make a DEALER a CURVE client; set before it connects.
    public var socketOptions: [ZMQSocketOption] {
        [.curveServerKey(server), .curvePublicKey(own.publicKey), .curveSecretKey(own.secretKey)]
    }
}

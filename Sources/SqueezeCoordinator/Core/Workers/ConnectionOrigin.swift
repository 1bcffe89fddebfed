/// What the transport says of a worker's connection, as opposed to what the worker says of
/// itself: the name ZAP gave its CURVE key, and the address its TCP connection comes from.
/// A peer can choose neither without holding another key or another host.
struct ConnectionOrigin: Sendable, Hashable {
    /// The ZAP user id of its CURVE key (the certificate's file name); nil without CURVE.
    var key: String?
    /// Its IP address as libzmq saw the connection (`Peer-Address`); nil when unknown.
    var address: String?

    /// An origin of `key` and `address`.
    init(key: String? = nil, address: String? = nil) {
        // Empty is how libzmq says "none".
        self.key = key?.isEmpty == false ? key : nil
        self.address = address?.isEmpty == false ? address : nil
    }
}

extension ConnectionOrigin: ExpressibleByNilLiteral {
    /// Nothing known: no key, no address.
    init(nilLiteral: ()) {
        self.init()
    }
}

/// What the transport says of a worker's connection, as opposed to what the worker says of
/// itself: the name ZAP gave its CURVE key, the address its TCP connection comes from, and
/// for a connection over loopback the process at its other end. A peer can choose none of
/// them without holding another key, another host or another process.
struct ConnectionOrigin: Sendable, Hashable {
    /// The ZAP user id of its CURVE key (the certificate's file name); nil without CURVE.
    var key: String?
    /// Its IP address as libzmq saw the connection (`Peer-Address`); nil when unknown.
    var address: String?
    /// The pid of the process at the other end of a loopback connection, as the kernel says
    /// (`LoopbackPeers`); nil for other connections or when it is not visible here.
    var process: Int32?

    /// Whether the connection comes over loopback: from this host, where a process tells
    /// workers apart and an address does not.
    var isLoopback: Bool {
        guard let address else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// An origin of `key`, `address` and `process`.
    init(key: String? = nil, address: String? = nil, process: Int32? = nil) {
        self.process = process
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

import Glibc

/// Whether a bind address keeps a socket on this machine, for the coordinator's safe
/// defaults: without CURVE it may listen only where no other machine can reach it.
public enum ZMQBindAddress {
    /// True for `inproc://`, `ipc://` and `tcp://` on a loopback address (127.0.0.0/8, `::1`,
    /// `localhost`, the `lo` interface); false for everything else, `tcp://*:…`, `0.0.0.0`,
    /// other interfaces and host names included.
    public static func isLocal(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("inproc://") || endpoint.hasPrefix("ipc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        return isLoopback(host(of: endpoint.dropFirst("tcp://".count)))
    }

    /// The host of `host:port` or `[v6]:port`.
    private static func host(of address: Substring) -> Substring {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return address[address.index(after: address.startIndex)..<close]
        }
        guard let colon = address.lastIndex(of: ":") else { return address }
        return address[..<colon]
    }

    private static func isLoopback(_ host: Substring) -> Bool {
        if host == "localhost" || host == "lo" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(host), &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, String(host), &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        let loopback = bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
        // An IPv4-mapped address (::ffff:127.x.y.z) is loopback when its IPv4 part is.
        let mapped = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        return loopback || mapped
    }
}

/// A peer of the coordinator — a worker's or a client's connection — as its ZeroMQ routing id.
/// Only the bytes the ROUTER socket gave it; never what the peer says of itself.
struct PeerID: Hashable, Sendable {
    /// The routing id's bytes.
    let bytes: [UInt8]

    /// The peer whose routing id is `bytes`.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

extension PeerID: Comparable {
    /// Byte order: a stable order for choices that must not depend on a table's.
    static func < (lhs: PeerID, rhs: PeerID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension PeerID: ExpressibleByStringLiteral {
    /// A peer named by a string's bytes (tests, and in-process names).
    init(stringLiteral value: String) {
        self.init(Array(value.utf8))
    }
}

extension PeerID: CustomStringConvertible {
    /// The routing id for log lines: its first 64 bytes as text, escaped.
    var description: String {
        String(decoding: bytes.prefix(64), as: UTF8.self).debugDescription
    }
}

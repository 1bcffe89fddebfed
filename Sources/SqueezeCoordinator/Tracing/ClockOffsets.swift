/// How each worker's monotonic clock maps onto the coordinator's: for every sample (a worker
/// time `sent` that arrived at coordinator time `received`), `received - sent` is the offset
/// plus the message's delay, so the smallest seen is the best estimate, late by the fastest
/// delay only (sub-millisecond on a LAN). Samples come from `clock` messages, sent with each
/// heartbeat, and from `timing` messages, sent just before an answer.
struct ClockOffsets: Sendable {
    private var offsets: [PeerID: Int64] = [:]

    /// Takes a sample from `peer`. Times are range-checked by the decoder (below 2^61).
    mutating func sample(_ peer: PeerID, sent: Int64, received: Int64) {
        let candidate = received - sent
        if let known = offsets[peer], known <= candidate { return }
        offsets[peer] = candidate
    }

    /// The estimate for `peer`, or nil before its first sample.
    func offset(of peer: PeerID) -> Int64? { offsets[peer] }

    /// Forgets a worker that left (it may come back with another clock: a new host).
    mutating func forget(_ peer: PeerID) {
        offsets.removeValue(forKey: peer)
    }
}

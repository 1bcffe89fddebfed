import SqueezeProtocol

/// A worker's listing of a scan item out with a worker of another principal to be listed
/// again: what the scanner said (its sections, for the names it claimed), the digest of that
/// under the check's key, and who checks it.
struct PendingListingCheck: Sendable {
    /// The scan item.
    var item: ItemKey
    /// The worker that listed it.
    var scanner: PeerID
    /// The slice it was sent.
    var slice: ScanSlice
    /// The listing's sections, as the scanner sent them.
    var sections: [ScanSection]
    /// The digest of the scanner's listing under the check's key.
    var digest: UInt64
    /// The worker checking it.
    var verifier: PeerID
    /// When it went to its verifier.
    var sentAt: ContinuousClock.Instant
    /// For an audit: the worker whose agreeing answer it checks (nil for a first check).
    var audits: PeerID? = nil
}

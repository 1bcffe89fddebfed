import SqueezeProtocol

/// A worker's listing of a scan item whose check has not come back: what the scanner said
/// (its sections, for the names it claimed), the digest of that under the check's key, and
/// who checks it.
struct PendingListingCheck: Sendable {
    /// The scan item.
    var item: ItemKey
    /// The worker that listed it.
    var scanner: PeerID
    /// The slice it was sent.
    var slice: ScanSlice
    /// The listing's sections, as the scanner sent them.
    var sections: [ScanSection]
    /// The slice as a `scan` with its limits, and the key and digest of the scanner's listing.
    var check: ListingLocalCheck
    var digest: UInt64
    /// The worker checking it; nil while the coordinator lists the slice itself.
    var verifier: PeerID?
    /// Whether the coordinator's listing is an audit of a worker's agreeing answer.
    var audit = false
    /// When it went to its verifier.
    var sentAt: ContinuousClock.Instant
}

import SqueezeProtocol

/// A slice the coordinator lists itself to check a worker's listing of it: no worker of
/// another principal can, the verifier did not answer in time or left, or an audit.
struct ListingLocalCheck: Sendable {
    /// The check's id.
    var checkID: UInt64
    /// The slice, with the limits the scanner was given.
    var scan: ScanAssignment
    /// The digest's key.
    var key0: UInt64
    var key1: UInt64

    /// Blocking: the digest of the slice's listing as it is now.
    func digest() -> UInt64 { scan.listing().report.listingDigest(key0: key0, key1: key1) }
}

/// Verifying worker → coordinator: a `checkListing`'s answer, the digest of what the slice
/// holds (`ScanReport.listingDigest`), unreadable directories included.
public struct ListingChecked: Sendable, Equatable {
    /// The check's id.
    public var checkID: UInt64
    /// The digest under the check's key.
    public var digest: UInt64

    /// Creates an answer.
    public init(checkID: UInt64, digest: UInt64) {
        self.checkID = checkID
        self.digest = digest
    }
}

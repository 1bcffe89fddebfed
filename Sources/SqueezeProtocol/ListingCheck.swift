/// Coordinator → verifying worker: list a slice exactly as a `scan` of it would, compress
/// nothing, and answer with the listing's digest under `key` (`checkListing`, docs/protocol.md,
/// "Listing checks"). The coordinator compares it with the digest of the scanner's `scanned`:
/// a scanner that leaves files out, or claims a slice ends later than its limits end it, is
/// found out by a worker of another principal.
public struct ListingCheck: Sendable, Equatable {
    /// Names this check in the answer.
    public var checkID: UInt64
    /// The digest's key, drawn after the scanner's listing came in (`SipHash24`).
    public var key0: UInt64
    public var key1: UInt64
    /// The slice and its limits, as the scanner was sent them.
    public var scan: ScanAssignment

    /// Creates a check.
    public init(checkID: UInt64, key0: UInt64, key1: UInt64, scan: ScanAssignment) {
        self.checkID = checkID
        self.key0 = key0
        self.key1 = key1
        self.scan = scan
    }
}

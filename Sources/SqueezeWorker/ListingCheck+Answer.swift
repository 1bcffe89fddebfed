import SqueezeProtocol

extension ListingCheck {
    /// Blocking: lists the slice exactly as its scan did, writing nothing, and answers with the
    /// listing's digest under the check's key: a `checkListing`'s answer, or the one that rides
    /// in a batch's `verified`.
    func answer() -> ListingChecked {
        ListingChecked(checkID: checkID, digest: scan.listing().report.listingDigest(key0: key0, key1: key1))
    }
}

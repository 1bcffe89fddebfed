/// A name range of a directory that a worker's listing claimed and a check found may be
/// incomplete: the coordinator lists it, leaving out the names the listing held
/// (`CoordinatorCore.listingDiffers`).
struct ListingGap: Sendable, Equatable {
    /// The range ends with this name (inclusive); nil: at the directory's end.
    var through: [UInt8]?
    /// Names the worker listed: planned already, not listed again.
    var known: Set<[UInt8]>
}

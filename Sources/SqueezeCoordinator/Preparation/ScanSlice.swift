import SqueezeIO

/// A slice of one directory of a job scanned in slices (`DirectorySlice`): the directory,
/// relative to the job's source root, and the name its entries start after.
struct ScanSlice: Sendable, Equatable {
    /// Relative to the source root; empty for the root itself.
    var directory: BytePath
    /// The slice's entries come after this name; nil for the directory's first slice.
    var after: [UInt8]?
    /// Further directories to read from their start once this one is done: siblings found
    /// together go out together, so a folder of many small folders is a few items.
    var more: [BytePath] = []
    /// Set when the slice is a range a worker's listing claimed (`ListingGap`): it ends there,
    /// and the names the listing held are left out.
    var gap: ListingGap?
}

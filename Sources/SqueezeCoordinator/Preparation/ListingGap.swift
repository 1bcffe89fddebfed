import SqueezeProtocol

/// A name range of a directory that a worker's listing claimed, for the coordinator to list
/// with the names the listing held left out (`CoordinatorCore+ListingChecks`): what it finds
/// there, the listing left out.
struct ListingGap: Sendable, Equatable {
    /// The range ends with this name (inclusive); nil: at the directory's end.
    var through: [UInt8]?
    /// The listing's section of the directory: its names are passed over.
    var section: ScanSection

    /// The section's names, in byte order: small and large files, subdirectories and notes
    /// (each list is in order; together they are merged here, off the coordinator's core).
    func knownNames() -> [[UInt8]] {
        var names: [[UInt8]] = []
        names.reserveCapacity(section.smallFiles.count + section.largeFiles.count + section.subdirectories.count + section.notes.count)
        names += section.smallFiles.lazy.map(\.relativePath)
        names += section.largeFiles.lazy.map(\.relativePath)
        names += section.subdirectories
        names += section.notes.lazy.map(\.name)
        names.sort { $0.lexicographicallyPrecedes($1) }
        return names
    }
}

/// A regular file found by a scan.
public struct ScannedFile: Sendable, Equatable {
    /// The path relative to the scan root.
    public var relativePath: BytePath
    /// Its stamp at scan time; reads are checked against it.
    public var stamp: FileStamp

    /// Creates an entry.
    public init(relativePath: BytePath, stamp: FileStamp) {
        self.relativePath = relativePath
        self.stamp = stamp
    }
}

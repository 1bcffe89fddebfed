/// What a directory scan found.
public struct ScanResult: Sendable {
    /// Regular files, sorted by path.
    public var files: [ScannedFile] = []
    /// Symlinks, FIFOs, sockets and devices: never opened or followed.
    public var skipped: [ScanNote] = []
    /// Directories or entries that could not be read.
    public var failures: [ScanNote] = []
    /// Every entry in walk order, directories and the root included: only from a walker made
    /// with `everyEntry` (an archive's scan); empty otherwise.
    public var entries: [ScannedEntry] = []

    /// An empty result.
    public init() {}
}

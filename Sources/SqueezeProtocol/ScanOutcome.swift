/// How a `scan` went (the first byte of `scanned`'s outcome).
public enum ScanOutcome: UInt8, Sendable, Equatable {
    /// The slice is listed; its batch's pieces follow.
    case listed = 0
    /// The directory is on another file system than the root: the coordinator slices it
    /// itself (device numbers are the coordinator's to compare).
    case otherFileSystem = 1
    /// The directory could not be opened or read: its files are not found, the job goes on.
    case unreadable = 2
}

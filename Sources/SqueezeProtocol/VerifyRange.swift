/// A block of a `verify` item that asks only for the CRC-32 of a range of a file in the job's
/// workspace: a segment another worker stitched, checked against the pieces it was made from.
public struct VerifyRange: Sendable, Equatable {
    /// The file (absolute): a stitched output in the workspace.
    public var path: [UInt8]
    /// Where the range starts and how long it is.
    public var offset: UInt64
    public var length: UInt64

    /// Creates a range.
    public init(path: [UInt8], offset: UInt64, length: UInt64) {
        self.path = path
        self.offset = offset
        self.length = length
    }
}

/// One file's `.gz` is complete, fsynced and in place.
public struct FileDone: Codable, Sendable, Equatable {
    /// The path relative to the source.
    public var path: String
    /// Uncompressed size.
    public var bytesIn: UInt64
    /// Size of the `.gz`.
    public var bytesOut: UInt64

    /// Creates a completion payload.
    public init(path: String, bytesIn: UInt64, bytesOut: UInt64) {
        self.path = path
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
    }
}

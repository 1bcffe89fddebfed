/// How far one file in progress has come.
public struct FileProgress: Codable, Sendable, Equatable {
    /// The path relative to the source.
    public var path: String
    /// Uncompressed bytes already compressed.
    public var done: UInt64
    /// The file's size.
    public var total: UInt64

    /// Creates a file progress entry.
    public init(path: String, done: UInt64, total: UInt64) {
        self.path = path
        self.done = done
        self.total = total
    }
}

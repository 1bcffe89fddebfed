/// A file a resumed job published before its coordinator stopped, and keeps: counted as done,
/// not compressed again.
struct KeptFile: Sendable {
    /// Its source's bytes.
    var bytesIn: UInt64
    /// Its output's bytes.
    var bytesOut: UInt64
}

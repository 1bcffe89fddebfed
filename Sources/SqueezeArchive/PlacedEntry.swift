import SqueezeIO

/// An entry of a `TarLayout`: its header's content and, for a regular file with data, the
/// scan's stamp its bytes are read against.
struct PlacedEntry: Sendable {
    /// What the header says.
    var entry: TarEntry
    /// Where its data is read from, relative to the layout's source root; nil without data.
    var source: BytePath?
    /// The scan's stamp of the source; every read is checked against it.
    var stamp: FileStamp?
    /// Bytes of the header (an extended header included).
    var headerLength: Int
}

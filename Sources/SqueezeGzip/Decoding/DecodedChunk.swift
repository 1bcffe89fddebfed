/// What decoding one chunk of a gzip member ahead of the in-order pass gave (alone, or primed
/// with the window before it by the in-order thread): its output (in its slot's buffer) and
/// CRC-32, and where its input left the deflate stream. Only used if the chunk before ends
/// exactly where this one starts, so its start is known to be a block boundary.
struct DecodedChunk: Sendable {
    var length: UInt64
    /// Nil when not taken yet: the in-order pass takes it (while its inflating thread goes on).
    var crc: UInt32?
    /// How the chunk's input ended.
    var stop: RawInflater.Stop
}

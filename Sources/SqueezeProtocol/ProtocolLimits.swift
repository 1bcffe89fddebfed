/// Size limits of protocol v2. Decoders enforce them; receivers hold each message to its
/// type's bound (`MessageType.bound`), worked out from them; sockets set `ZMQ_MAXMSGSIZE` from
/// `maxFrameSize`.
public enum ProtocolLimits {
    /// The protocol version this build speaks.
    public static let version: UInt8 = 2
    /// Header frame length in bytes.
    public static let headerSize = 16
    /// Largest block a job may ask for.
    public static let maxBlockSize = 64 << 20
    /// Largest dictionary sent with a block (deflate's window).
    public static let maxDictionarySize = 32 << 10
    /// Most blocks one work item may carry (a bundle of tiny files).
    public static let maxBlocksPerItem = 8192
    /// Most uncompressed bytes one work item may carry, over all its blocks: four blocks of the
    /// largest size, what a large file's head item of the default item size can reach. It is
    /// what bounds the bytes of a `work`, `result` or `verify` message.
    public static let maxItemBytes = 4 * maxBlockSize
    /// Longest path in a reference (Linux's PATH_MAX).
    public static let maxPathBytes = 4096
    /// Longest name of a directory entry in a `scanned` (Linux's NAME_MAX).
    public static let maxNameBytes = 255
    /// Most directories one `scanned` reports (its sections).
    public static let maxScanSections = 256
    /// Longest gzip header a reference may ask a worker to write (FNAME is at most 255 bytes).
    public static let maxHeaderBytes = 512
    /// Longest gzip header a stitch may ask a worker to write: `maxHeaderBytes` and the
    /// largest extra field (XLEN and 65,535 bytes), where a member's offset table lives.
    public static let maxTableHeaderBytes = maxHeaderBytes + 2 + Int(UInt16.max)
    /// Largest offset at which a block is written in place (1 PiB): beyond any real file,
    /// and far from `UInt64.max`, so adding a block's length cannot overflow.
    public static let maxPlacementOffset: UInt64 = 1 << 50
    /// Heartbeat intervals a peer may announce or ask for (`Welcome`, `JobRequest`), in ms.
    public static let heartbeatMilliseconds = 100...60_000
    /// Missed heartbeat intervals after which a peer counts as gone (`Welcome`).
    public static let liveness = 1...100
    /// Largest JSON control body.
    public static let maxControlBody = 8 << 20
    /// Largest `workerReady` body: an announcement is a few hundred bytes, plus the items it
    /// still holds when it registers again (at most 65 per slot, about 530 KB for 1,024 slots);
    /// it is all a peer may send before it is registered.
    public static let maxHelloBody = 1 << 20
    /// Largest frame on the workers' sockets (`ZMQ_MAXMSGSIZE`, which libzmq checks per frame):
    /// a compressed block of the largest size at deflate's worst. Every table is smaller.
    public static let maxFrameSize = Int64(maxCompressedBytes(forRaw: maxBlockSize))
    /// The segments frame of a `workRef` or `verify` whose blocks have composite sources
    /// (`--tar` by reference): at most 64 MiB, within `maxFrameSize`.
    public static let maxSegmentsFrame = 64 << 20

    /// The most bytes a block of `raw` bytes (at most `maxBlockSize`) may take compressed:
    /// deflate's worst case plus a gzip header and trailer. Anything longer is not a compressed
    /// form of that block.
    public static func maxCompressedBytes(forRaw raw: Int) -> Int {
        raw + raw / 8 + 4096
    }
}

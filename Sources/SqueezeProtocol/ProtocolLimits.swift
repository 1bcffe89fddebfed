/// Size limits of protocol v2. Decoders enforce them; sockets set `ZMQ_MAXMSGSIZE` from them.
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
    /// Longest path in a reference (Linux's PATH_MAX).
    public static let maxPathBytes = 4096
    /// Longest gzip header a reference may ask a worker to write (FNAME is at most 255 bytes).
    public static let maxHeaderBytes = 512
    /// Largest offset at which a block is written in place (1 PiB): beyond any real file,
    /// and far from `UInt64.max`, so adding a block's length cannot overflow.
    public static let maxPlacementOffset: UInt64 = 1 << 50
    /// Heartbeat intervals a peer may announce or ask for (`Welcome`, `JobRequest`), in ms.
    public static let heartbeatMilliseconds = 100...60_000
    /// Missed heartbeat intervals after which a peer counts as gone (`Welcome`).
    public static let liveness = 1...100
    /// Largest JSON control body.
    public static let maxControlBody = 8 << 20
    /// Largest whole message accepted on a socket: a full item of maximum blocks, plus slack
    /// for deflate's worst-case expansion and the per-block table.
    public static let maxMessageSize: Int64 = Int64(maxBlockSize) * 2 + Int64(maxBlocksPerItem) * 64 + 1 << 20
}

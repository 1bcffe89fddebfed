/// How an endpoint holds each incoming message to a bound while it reads it
/// (`ZMQEndpointConfiguration.receiveLimit`).
///
/// libzmq hands over a multipart message only once all of it has arrived, and its
/// `ZMQ_MAXMSGSIZE` bounds each frame, not the message, nor the number of frames. So the I/O
/// thread reads a message frame by frame, asks `bound` once it has the first `leadingFrames`
/// (a ROUTER's routing id and the protocol header, say), and keeps a running count of frames and
/// bytes. A message that goes past its bound is dropped as it is read: the frames kept so far
/// are let go, each further frame is closed as soon as it is read, and the endpoint reports a
/// `ZMQEndpointEvent.dropped` with the counts instead of the message.
public struct ZMQReceiveLimit: Sendable {
    /// Frames read before `bound` is asked: 2 for a ROUTER (routing id, header), 1 for a DEALER.
    public var leadingFrames: Int
    /// Most bytes of each leading frame; a message with a longer one is dropped without asking
    /// `bound`.
    public var leadingFrameBytes: Int
    /// The bound of a message that starts with these frames: `leadingFrames` of them, or all
    /// of a message that had fewer. Runs on the I/O thread for every message, so it must be
    /// quick and must not block.
    public var bound: @Sendable ([ZMQFrame]) -> ZMQMessageBound
    /// Bytes of dropped messages after which the I/O thread has glibc give its free memory back
    /// to the kernel (`malloc_trim`). glibc keeps the freed heap a large message took (libzmq
    /// allocated it all before the first frame could be read), so without this a dropped
    /// message would stay resident: while a message is dropped, what reaches the top of an
    /// arena goes back as it is freed (the trim threshold is 0 meanwhile), and the trim gives
    /// back the free pages below. Counted over drops since the last trim, so a stream of small
    /// drops does not trim on every one.
    public var trimAfterBytes: Int

    /// A limit that asks `bound` after `leadingFrames` frames of at most `leadingFrameBytes` each.
    public init(
        leadingFrames: Int, leadingFrameBytes: Int, trimAfterBytes: Int = 8 << 20,
        bound: @escaping @Sendable ([ZMQFrame]) -> ZMQMessageBound
    ) {
        self.leadingFrames = max(1, leadingFrames)
        self.leadingFrameBytes = max(0, leadingFrameBytes)
        self.trimAfterBytes = max(0, trimAfterBytes)
        self.bound = bound
    }
}

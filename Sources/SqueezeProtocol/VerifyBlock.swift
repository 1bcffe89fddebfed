/// One block of a `verify` item.
public enum VerifyBlock: Sendable, Equatable {
    /// The compressed bytes travel with the message (remote mode): the dictionary and the
    /// block's raw deflate, each its own payload frame, both as the coordinator holds them.
    case inline(InlineVerifyBlock)
    /// The bytes are on shared storage: the verifier reads the source range and the
    /// compressed range itself.
    case reference(VerifyReference)
    /// Only the CRC-32 of a range of a file on shared storage (a stitched segment): nothing
    /// to decode. Sent only to a worker that announced `verifyRange`.
    case range(VerifyRange)
}

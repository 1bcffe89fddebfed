/// What a verifier found for one block.
public struct VerifyFinding: Sendable, Equatable {
    /// What happened to the block.
    public var outcome: VerifyOutcome
    /// CRC-32 of the bytes it decoded to (`decoded` only; 0 otherwise).
    public var crc: UInt32
    /// CRC-32 of the source data the verifier read itself (`decoded` references only; 0 for
    /// an inline block).
    public var sourceCRC: UInt32
    /// CRC-32 of the compressed bytes it read (for a range block, the range's), when it was
    /// read whole; nil from a verifier that does not report it (one without `verifyRange`).
    /// A stitched segment is checked against these.
    public var storedCRC: UInt32?
    /// Why, for `defect` and `unreadable` (at most 1024 bytes of UTF-8); empty otherwise.
    public var reason: String

    /// Creates a finding.
    public init(outcome: VerifyOutcome, crc: UInt32 = 0, sourceCRC: UInt32 = 0, storedCRC: UInt32? = nil, reason: String = "") {
        self.outcome = outcome
        self.crc = crc
        self.sourceCRC = sourceCRC
        self.storedCRC = storedCRC
        self.reason = reason
    }
}

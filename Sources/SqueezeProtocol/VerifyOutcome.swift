/// The outcome byte of one block in a `verified` answer.
public enum VerifyOutcome: UInt8, Sendable, Equatable {
    /// It decoded to exactly its planned length and ended where it must; `crc` says to what.
    case decoded = 0
    /// It does not decode, decodes to another length, or ends in the wrong place.
    case defect = 1
    /// The verifier could not read the source or the compressed bytes (shared storage).
    case unreadable = 2
}

/// Why a compressed block was refused by `BlockVerifier`: one line for a log.
public struct BlockDefect: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. "decodes to 100 bytes, 4096 planned".
    public let reason: String

    /// A defect with its reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}

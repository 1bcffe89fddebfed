/// One whole member of a `PublishGrant`: which piece of the item, and where it goes.
public struct PublishMember: Sendable, Equatable {
    /// The block's position in the item: the piece is `p<item>-<attempt>-<position>`.
    public var position: UInt32
    /// The output's path (absolute path bytes, as the coordinator sees it).
    public var output: [UInt8]
    /// Whether an existing file at `output` is replaced (`--force`, or the job's own earlier
    /// output); otherwise one there makes this member fail.
    public var replace: Bool

    /// Creates a member.
    public init(position: UInt32, output: [UInt8], replace: Bool) {
        self.position = position
        self.output = output
        self.replace = replace
    }
}

/// A member of a `PublishGrant` that its worker could not publish.
public struct PublishFailure: Sendable, Equatable {
    /// The member's position in the item.
    public var position: UInt32
    /// Why (at most 1,024 bytes on the wire).
    public var reason: String

    /// Creates a failure.
    public init(position: UInt32, reason: String) {
        self.position = position
        self.reason = reason
    }
}

/// A scheduling decision: send `item` to `worker`.
struct Assignment: Sendable, Equatable {
    /// The worker's routing id.
    var worker: PeerID
    /// The item.
    var item: ItemKey
}

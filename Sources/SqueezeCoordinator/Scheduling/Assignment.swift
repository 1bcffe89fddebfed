/// A scheduling decision: send `item` to `worker`.
struct Assignment: Sendable, Equatable {
    /// The worker's routing id.
    var worker: [UInt8]
    /// The item.
    var item: ItemKey
}

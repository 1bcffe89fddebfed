/// The kind of an item's number: consecutive within its job from 0, in planning order.
enum ItemIdentity: IdentifierKind {}

/// An item's number within its job.
typealias ItemID = Identifier<ItemIdentity>

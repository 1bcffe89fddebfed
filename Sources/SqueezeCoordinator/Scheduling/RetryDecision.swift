/// What becomes of an item that went wrong on the worker holding it (its `itemFailed`, or a
/// result refused).
enum RetryDecision: Sendable, Equatable {
    /// Queued again, for a worker it has not gone wrong on.
    case retry
    /// A copy of it is still out with another worker: that copy's answer decides.
    case stillHeld
    /// It went wrong on as many workers as it may, or no other connected worker can take it:
    /// its files fail.
    case giveUp
    /// The sender does not hold the item: its word changes nothing (and counts against nothing).
    case notHolder
}

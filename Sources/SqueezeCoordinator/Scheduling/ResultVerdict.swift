/// What the scheduler makes of a result or an `itemFailed` from a worker.
enum ResultVerdict: Sendable, Equatable {
    /// The first answer for the item, from the worker it was dispatched to: take it.
    case accepted
    /// The item is already done, or its job has ended: drop it (a late duplicate).
    case late
    /// The item is not done, but the sender does not hold it (it was never dispatched there,
    /// or was taken back when the worker was declared dead): drop it.
    case notAssigned
    /// The job has no such item.
    case unknownItem
}

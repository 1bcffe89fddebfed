import SqueezeProtocol

/// A `publish` out to the worker whose attempt of an item was accepted. Its members wait for
/// that worker's `published`; should it leave or take too long, a writer publishes the same
/// attempt's members instead. No other attempt of the item is ever granted.
struct GrantInFlight {
    /// The worker that wrote the members and may rename them.
    var worker: PeerID
    /// The accepted attempt: the only one whose pieces are published.
    var attempt: AttemptID
    /// When the grant was made (for `CoordinatorConfiguration.publishDeadline`).
    var since: ContinuousClock.Instant
    /// Whether `publish` went out; with a journal it waits until the members are recorded.
    var sent = false
    /// The members: their outputs and pieces. Empty for a batch's grant, whose members are
    /// its files and `batchPieces`, spelled out only if a writer takes it over.
    var members: [(spec: OutputSpec, piece: PieceBlock)]
    /// For a batch's grant: the accepted answer's piece per file, in position order; nil otherwise.
    var batchPieces: [PieceReport]?
}

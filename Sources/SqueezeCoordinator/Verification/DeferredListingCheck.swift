import SqueezeProtocol

/// A worker's listing of a scan item whose batch is still being compressed: its check waits to
/// ride in that batch's `verifyBatch` (`BatchCheck.listing`), so one round trip checks both.
/// Counted on the job as a listing check from the `scanned` on.
struct DeferredListingCheck: Sendable {
    /// The scanner and the attempt whose batch the check waits for.
    var scanner: PeerID
    var attempt: AttemptID
    /// The slice it was sent.
    var slice: ScanSlice
    /// The listing, as the scanner sent it.
    var report: ScanReport
    /// When the listing came in: past the verify deadline the check goes out on its own.
    var since: ContinuousClock.Instant
}

/// A file whose pieces a shared-storage worker is joining.
struct StitchInProgress: Sendable {
    /// The worker's routing id.
    var worker: [UInt8]
    /// The stitch's attempt: only this attempt's answer counts, only its output is published.
    var attempt: UInt64
    /// When it was sent.
    var since: ContinuousClock.Instant
    /// Compressed bytes to join; sets how long the worker may take.
    var bytes: UInt64
}

import DequeModule

/// A file whose pieces a shared-storage worker is joining, segment by segment as they come in.
struct StitchInProgress: Sendable {
    /// The worker's routing id: every segment of this attempt goes to it.
    var worker: PeerID
    /// The stitch's attempt: only this attempt's answers count, only its output is published.
    var attempt: AttemptID
    /// When the worker was last given work or last answered; with segments outstanding, how
    /// long it has had to answer.
    var since: ContinuousClock.Instant
    /// Pieces sent so far, from the file's first.
    var sentPieces = 0
    /// Where the next segment starts in the output.
    var end: UInt64
    /// Segments sent and not yet answered, in order: each answer must report the next one's end.
    var awaited = Deque<StitchSegment>()
    /// Where the output ended after the last answered segment.
    var confirmed: UInt64
    /// The last segment (with the trailer) is sent.
    var lastSent = false
    /// Checks of answered segments not yet back: the output is published only once they are.
    var checking: Set<UInt64> = []

    /// Starts an attempt whose first segment goes after a header of `headerLength` bytes.
    init(worker: PeerID, attempt: AttemptID, headerLength: Int, now: ContinuousClock.Instant) {
        self.worker = worker
        self.attempt = attempt
        since = now
        end = UInt64(headerLength)
        confirmed = UInt64(headerLength)
    }

    /// Compressed bytes sent and not yet answered.
    var outstandingBytes: UInt64 { (awaited.last?.range.upperBound ?? confirmed) - confirmed }

    /// Whether every segment, the last included, is answered: the output is whole.
    var isWritten: Bool { lastSent && awaited.isEmpty }

    /// Whether the output is whole and every segment's check came back good: it can be published.
    var isComplete: Bool { isWritten && checking.isEmpty }
}

/// Which stages are full, and what the core holds back while they are. A full stage is behind:
/// sending more work out would only pile up more for it, so no new item is dispatched while a
/// reader, checker, journal or writer queue is full (items out finish and are written), and no
/// job's next batch is scanned while the scanner's queue is. What is already queued still runs;
/// the queue's own bound is its high watermark plus what is in flight when it is reached.
struct StagePressure: Sendable {
    /// Stages at their high watermark and not yet drained to their low one.
    private(set) var full: Set<Stage> = []

    /// Whether new items may go out.
    var allowsDispatch: Bool { full.isEmpty || full == [.scan] }

    /// Whether jobs may scan their next batch.
    var allowsScans: Bool { !full.contains(.scan) }

    /// Records that `stage` reached its high watermark (`true`) or drained (`false`); returns
    /// whether that changed anything.
    mutating func report(_ stage: Stage, full isFull: Bool) -> Bool {
        isFull ? full.insert(stage).inserted : full.remove(stage) != nil
    }
}

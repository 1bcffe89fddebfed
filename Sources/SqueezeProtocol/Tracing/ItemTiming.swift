/// Worker → coordinator, just before an answer (`result`, `resultRef` or `itemFailed`): when
/// the worker took the item, which slot ran it, and where its time went, on the worker's own
/// monotonic clock in microseconds. Sent only to a coordinator whose `welcome` asked for
/// timings; the coordinator maps the times onto its clock with the offset it measures from
/// `clock` messages, for `--trace`.
public struct ItemTiming: Codable, Sendable, Equatable {
    /// The item's job.
    public var jobID: UInt64
    /// The item.
    public var itemID: UInt64
    /// The slot (0 ..< the worker's slots) that ran it.
    public var slot: Int
    /// When the item arrived at the worker.
    public var receivedAt: Int64
    /// When a slot began it.
    public var startedAt: Int64
    /// When the slot was done with it, just before the answer left.
    public var endedAt: Int64
    /// Time spent reading sources (shared storage), in microseconds.
    public var readMicros: Int64
    /// Time spent compressing, in microseconds.
    public var compressMicros: Int64
    /// Time spent writing pieces or blocks in place (shared storage), in microseconds.
    public var writeMicros: Int64

    /// Creates a timing.
    public init(jobID: UInt64, itemID: UInt64, slot: Int, receivedAt: Int64, startedAt: Int64, endedAt: Int64,
                readMicros: Int64, compressMicros: Int64, writeMicros: Int64) {
        self.jobID = jobID
        self.itemID = itemID
        self.slot = slot
        self.receivedAt = receivedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.readMicros = readMicros
        self.compressMicros = compressMicros
        self.writeMicros = writeMicros
    }

    /// Why the coordinator must not use this timing, or nil: times out of order or negative,
    /// phases longer than the item, a slot beyond `slots`. Checked before any arithmetic.
    public func defect(slots: Int) -> String? {
        guard (0..<max(slots, 1)).contains(slot) else { return "slot \(slot) of \(slots)" }
        guard receivedAt >= 0, startedAt >= receivedAt, endedAt >= startedAt, endedAt < Int64.max / 4 else {
            return "times out of order: received \(receivedAt), started \(startedAt), ended \(endedAt)"
        }
        let span = endedAt - startedAt
        for (name, value) in [("read", readMicros), ("compress", compressMicros), ("write", writeMicros)] where !(0...span).contains(value) {
            return "\(name) time \(value) µs outside 0...\(span)"
        }
        guard readMicros + compressMicros + writeMicros <= span else { return "phases longer than the item" }
        return nil
    }
}

import SqueezeProtocol

/// The trace of one job (`JobRequest.trace`): every dispatch of every item, what became of it
/// and when, on the coordinator's clock. Events go in as method calls with their times;
/// `take` hands out what ended since the last call, as a `TraceChunk` for the client. Holds
/// only attempts still open, so a long job's trace streams out instead of piling up here.
/// No I/O and no clock of its own: unit-tested with made-up times (JobTraceTests).
struct JobTrace: Sendable {
    /// Identifies an attempt: an item goes to a given worker at most once at a time.
    private struct AttemptKey: Hashable, Sendable {
        var item: ItemID
        var peer: PeerID
    }

    /// A worker as first seen by this trace.
    struct WorkerInfo: Sendable {
        /// Its id.
        var workerID: String
        /// Its host.
        var host: String
        /// Its slots.
        var slots: Int
    }

    /// The job.
    let jobID: JobID
    /// The job's start, in coordinator microseconds: trace times are relative to it.
    let start: Int64
    private var queuedAt: [ItemID: Int64] = [:]
    private var attempts: [ItemID: Int] = [:]
    private var open: [AttemptKey: TracedAttempt] = [:]
    /// The attempt whose answer won, per item, until its blocks are written.
    private var winners: [ItemID: AttemptKey] = [:]
    private var workers: [PeerID: TraceWorker] = [:]
    private var workersToSend: [PeerID] = []
    private var ended: [TracedAttempt] = []
    private var counters: [TraceCounters] = []

    /// A trace of job `jobID`, which started at coordinator time `start`.
    init(jobID: JobID, start: Int64) {
        self.jobID = jobID
        self.start = start
    }

    /// Attempts not yet ended: the dispatches out now and answers not yet written.
    var openAttempts: Int { open.count }

    /// Items planned at `at`.
    mutating func queued(_ items: some Sequence<ItemID>, at: Int64) {
        for item in items where queuedAt[item] == nil { queuedAt[item] = at - start }
    }

    /// An item handed to `peer` at `at`. An attempt of the same item still open with the same
    /// worker (it was taken back and given again) ends as requeued.
    mutating func dispatched(
        _ item: ItemID, to peer: PeerID, worker info: WorkerInfo, blocks: Int, bytes: Int, at: Int64, clockOffset: Int64?
    ) {
        let key = AttemptKey(item: item, peer: peer)
        if open[key] != nil { end(key, as: "requeued", at: at) }
        let index = worker(peer, info, clockOffset: clockOffset)
        let number = (attempts[item] ?? 0) + 1
        attempts[item] = number
        open[key] = TracedAttempt(
            item: item.value, attempt: number, worker: index, blocks: blocks, bytes: bytes,
            queuedAt: queuedAt[item] ?? at - start, dispatchedAt: at - start)
    }

    /// The coordinator read the item's bytes for `peer` from `readStart` to `readEnd`.
    mutating func read(_ item: ItemID, for peer: PeerID, from readStart: Int64, to readEnd: Int64) {
        let key = AttemptKey(item: item, peer: peer)
        open[key]?.readStart = readStart - start
        open[key]?.readEnd = readEnd - start
    }

    /// The worker's own account of the attempt (already range-checked), mapped onto the
    /// coordinator's clock by `offset` and kept inside the time the item was out.
    mutating func timing(_ timing: ItemTiming, from peer: PeerID, offset: Int64, receivedAt: Int64) {
        let key = AttemptKey(item: ItemID(timing.itemID), peer: peer)
        guard var attempt = open[key] else { return }
        let low = attempt.readEnd ?? attempt.dispatchedAt
        let high = max(low, receivedAt - start)
        let base = start
        let clamp = { (worker: Int64) in min(max(worker + offset - base, low), high) }
        attempt.slot = timing.slot
        attempt.workerStart = clamp(timing.startedAt)
        attempt.workerEnd = max(clamp(timing.endedAt), attempt.workerStart ?? low)
        attempt.workerReadMicros = timing.readMicros
        attempt.compressMicros = timing.compressMicros
        attempt.workerWriteMicros = timing.writeMicros
        open[key] = attempt
        if let offsetKnown = workers[peer], offsetKnown.clockOffsetMicros == nil {
            workers[peer]?.clockOffsetMicros = offset
            if !workersToSend.contains(peer) { workersToSend.append(peer) }
        }
    }

    /// `peer` answered at `at`. A winning answer waits for its blocks to be written; any other
    /// ends the attempt (`late`, `failed`).
    mutating func answered(_ item: ItemID, by peer: PeerID, at: Int64, won: Bool, outcome: String = "late") {
        let key = AttemptKey(item: item, peer: peer)
        guard open[key] != nil else { return }
        open[key]?.answeredAt = at - start
        if won {
            winners[item] = key
        } else {
            end(key, as: outcome, at: at)
        }
    }

    /// The winning answer of `item` passed the result check at `at`.
    mutating func verified(_ item: ItemID, at: Int64) {
        guard let key = winners[item] else { return }
        open[key]?.verifiedAt = at - start
    }

    /// The winning answer of `item` was refused after all (its check failed, or its worker
    /// could not read a source): the item goes out again.
    mutating func refused(_ item: ItemID, at: Int64) {
        guard let key = winners.removeValue(forKey: item) else { return }
        end(key, as: "refused", at: at)
    }

    /// `item`'s blocks are in their outputs (or were dropped with their failed files).
    mutating func written(_ item: ItemID, at: Int64) {
        queuedAt.removeValue(forKey: item)
        guard let key = winners.removeValue(forKey: item), var attempt = open.removeValue(forKey: key) else { return }
        attempt.outcome = "written"
        attempt.writtenAt = at - start
        ended.append(attempt)
    }

    /// `peer` left or fell silent: what it held and had not answered is requeued.
    mutating func workerLost(_ peer: PeerID, at: Int64) {
        for key in open.keys where key.peer == peer && open[key]?.answeredAt == nil {
            end(key, as: "requeued", at: at)
        }
    }

    /// A sample of the job's queues.
    mutating func sample(at: Int64, queued: Int, inFlight: Int, bytesInFlight: Int, unwritten: Int) {
        counters.append(TraceCounters(at: at - start, queued: queued, inFlight: inFlight, bytesInFlight: bytesInFlight, unwritten: unwritten))
    }

    /// What ended since the last call; nil when nothing did.
    mutating func take() -> TraceChunk? {
        var chunk = TraceChunk(jobID: jobID.value)
        chunk.workers = workersToSend.compactMap { workers[$0] }
        chunk.attempts = ended
        chunk.counters = counters
        workersToSend = []
        ended = []
        counters = []
        return chunk.isEmpty ? nil : chunk
    }

    /// The job ended at `at`: attempts still open are abandoned; returns the last chunk.
    mutating func finish(at: Int64) -> TraceChunk? {
        for key in Array(open.keys) { end(key, as: "abandoned", at: at) }
        winners = [:]
        return take()
    }

    private mutating func end(_ key: AttemptKey, as outcome: String, at: Int64) {
        guard var attempt = open.removeValue(forKey: key) else { return }
        attempt.outcome = outcome
        attempt.endedAt = at - start
        ended.append(attempt)
        if winners[key.item] == key { winners.removeValue(forKey: key.item) }
    }

    private mutating func worker(_ peer: PeerID, _ info: WorkerInfo, clockOffset: Int64?) -> Int {
        if let known = workers[peer] { return known.index }
        let index = workers.count + 1
        workers[peer] = TraceWorker(index: index, workerID: info.workerID, host: info.host, slots: info.slots, clockOffsetMicros: clockOffset)
        workersToSend.append(peer)
        return index
    }
}

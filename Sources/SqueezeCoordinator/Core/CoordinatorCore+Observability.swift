import SqueezeIO
import SqueezeProtocol

/// Metrics gauges and job traces: what the coordinator shows of itself, carried out on the
/// actor from state it holds anyway.
extension CoordinatorCore {
    /// Sets the gauges from the current state (every tick: a handful of atomic stores).
    mutating func updateGauges() {
        metrics.workers.record(workers.count)
        metrics.workerSlots.record(workers.slots)
        metrics.quarantinedWorkers.record(workers.peers.filter {
            verification.quarantine.isQuarantined(verification.identity(of: $0))
        }.count)
        metrics.itemsInFlight.record(scheduler.itemsInFlight)
        metrics.itemsQueued.record(scheduler.itemsQueued())
        var byState: [JobState: Int] = [.running: 0, .completed: 0, .cancelled: 0, .failed: 0]
        for id in jobOrder {
            guard let state = jobs[id]?.state else { continue }
            // A completed job still removing its workspace is running to its client.
            byState[state == .completed ? .running : state, default: 0] += 1
        }
        for job in finishedJobs { byState[job.state, default: 0] += 1 }
        for (state, gauge) in metrics.jobs { gauge.record(byState[state] ?? 0) }
    }

    /// Starts tracing job `id`. Workers send `timing` and `clock` only while some job is
    /// traced: the first traced job turns them on (before any of its items go out, on the same
    /// sockets, so each of its items is timed).
    mutating func startTrace(of id: JobID) {
        let first = traces.isEmpty
        traces[id] = JobTrace(jobID: id, start: micros)
        if first { sendTimings(true) }
    }

    /// Ends job `id`'s trace and returns its last chunk; the last traced job turns workers'
    /// timings off.
    mutating func endTrace(of id: JobID) -> TraceChunk? {
        guard var trace = traces.removeValue(forKey: id) else { return nil }
        if traces.isEmpty { sendTimings(false) }
        return trace.finish(at: micros)
    }

    /// Turns every worker's `timing` and `clock` messages on or off.
    mutating func sendTimings(_ on: Bool) {
        for peer in workers.peers { send(.timings(on), to: peer) }
    }

    /// Records that `assignment` went out, carrying `blocks` blocks of `bytes` bytes.
    mutating func traceDispatch(_ assignment: Assignment, blocks: Int, bytes: Int) {
        let peer = assignment.worker
        guard let worker = workers[peer] else { return }
        let info = JobTrace.WorkerInfo(workerID: worker.hello.workerID, host: worker.hello.host, slots: worker.hello.slots)
        traces[assignment.item.job]?.dispatched(
            assignment.item.item, to: peer, worker: info, blocks: blocks, bytes: bytes, at: micros,
            clockOffset: clocks.offset(of: peer))
    }

    /// A reader loaded a traced dispatch between `start` and `end`.
    mutating func traceRead(_ dispatch: Dispatch, from start: Int64, to end: Int64) {
        traces[dispatch.job]?.read(dispatch.item, for: dispatch.routingID, from: start, to: end)
    }

    /// Samples a traced job's queues and sends its client what its trace gathered.
    mutating func sampleTrace(of job: JobRecord) {
        guard traces[job.id] != nil else { return }
        let out = scheduler.itemsInFlight(job: job.id)
        traces[job.id]?.sample(
            at: micros, queued: scheduler.itemsQueued(job: job.id), inFlight: out.count,
            bytesInFlight: out.reduce(0) { $0 + (job.items[$1.item]?.bytes ?? 0) }, unwritten: job.unwritten.count)
        if let chunk = traces[job.id]?.take() { emit(to: job.id, .trace(chunk)) }
    }
}

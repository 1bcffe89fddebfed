import SqueezeGzip

/// The dispatch policy, apart from all I/O: credit per worker, a window per job, round-robin
/// between jobs, requeue on death, and which answers count. Events go in as method calls and
/// decisions come out as values; the `Coordinator` actor carries them out (reads, sends,
/// writes). Unit-tested without sockets (SchedulerTests).
struct Scheduler: Sendable {
    private(set) var workers: [[UInt8]: SchedulerWorker] = [:]
    private(set) var jobs: [UInt64: SchedulerJob] = [:]
    /// Running jobs in the order they were added; dispatch goes round-robin over them.
    private(set) var order: [UInt64] = []
    private var nextJob = 0

    init() {}

    // MARK: - Workers

    /// Registers a worker. A worker that registers again (it reconnected) gives back what it
    /// held: those items are returned, already requeued.
    @discardableResult
    mutating func addWorker(_ id: [UInt8], credit: Int, engines: Set<CompressionEngine>) -> [ItemKey] {
        let requeued = removeWorker(id)
        workers[id] = SchedulerWorker(credit: max(0, credit), engines: engines)
        return requeued
    }

    /// Forgets a worker (it left, fell silent or could not be reached); its items go to the
    /// front of their jobs' queues and are returned.
    @discardableResult
    mutating func removeWorker(_ id: [UInt8]) -> [ItemKey] {
        guard let worker = workers.removeValue(forKey: id) else { return [] }
        let held = worker.inFlight.sorted { ($0.job, $0.item) < ($1.job, $1.item) }
        // Prepending in reverse keeps the lowest item first.
        for key in held.reversed() { jobs[key.job]?.requeue(key.item) }
        return held
    }

    /// Whether some registered worker has `engine`.
    func canRun(_ engine: CompressionEngine) -> Bool {
        workers.values.contains { $0.engines.contains(engine) }
    }

    /// Items `id` holds now (0 for an unknown worker).
    func busy(_ id: [UInt8]) -> Int { workers[id]?.inFlight.count ?? 0 }

    // MARK: - Jobs

    /// Adds a job of `items` items (ids 0..<items), dispatched at most `window` items ahead of
    /// its oldest unfinished one, to workers that have `engine`.
    mutating func addJob(_ id: UInt64, items: Int, window: Int, engine: CompressionEngine) {
        guard jobs[id] == nil else { return }
        jobs[id] = SchedulerJob(items: items, window: window, engine: engine)
        order.append(id)
    }

    /// Ends a job (finished, cancelled or failed). Returns the workers that held its items,
    /// which should be told to drop them; their credit is free again.
    mutating func removeJob(_ id: UInt64) -> [[UInt8]] {
        guard jobs.removeValue(forKey: id) != nil else { return [] }
        if let index = order.firstIndex(of: id) {
            order.remove(at: index)
            if index < nextJob { nextJob -= 1 }
            if nextJob >= order.count { nextJob = 0 }
        }
        var holders: [[UInt8]] = []
        for (worker, var state) in workers {
            let held = state.inFlight.filter { $0.job == id }
            guard !held.isEmpty else { continue }
            state.inFlight.subtract(held)
            workers[worker] = state
            holders.append(worker)
        }
        return holders.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Whether `item` is done, or its job has ended.
    func isSettled(_ item: ItemKey) -> Bool {
        guard let job = jobs[item.job] else { return true }
        return job.isDone(item.item)
    }

    /// Items done and items in total for a job (nil for an unknown job).
    func progress(of id: UInt64) -> (done: Int, total: Int)? {
        jobs[id].map { ($0.doneCount, $0.done.count) }
    }

    // MARK: - Dispatch

    /// The next item to send and where: the next job (round-robin) with something sendable and
    /// a worker with free credit that has its engine; of those workers, the one with the most
    /// free credit. The item counts against that worker's credit from now on. Nil when no
    /// more can be sent.
    mutating func nextAssignment() -> Assignment? {
        guard !order.isEmpty else { return nil }
        for offset in 0..<order.count {
            let id = order[(nextJob + offset) % order.count]
            guard var job = jobs[id], job.hasDispatchable, let worker = freestWorker(with: job.engine) else { continue }
            guard let item = job.takeNext() else {
                jobs[id] = job
                continue
            }
            jobs[id] = job
            nextJob = (nextJob + offset + 1) % order.count
            let key = ItemKey(job: id, item: item)
            workers[worker]?.inFlight.insert(key)
            return Assignment(worker: worker, item: key)
        }
        return nil
    }

    /// Ties go to the smaller routing id, so the same events always give the same decisions.
    private func freestWorker(with engine: CompressionEngine) -> [UInt8]? {
        var best: (id: [UInt8], available: Int)?
        for (id, worker) in workers where worker.available > 0 && worker.engines.contains(engine) {
            if let current = best {
                guard worker.available > current.available
                    || (worker.available == current.available && id.lexicographicallyPrecedes(current.id)) else { continue }
            }
            best = (id, worker.available)
        }
        return best?.id
    }

    // MARK: - Answers

    /// A result for `item` from `worker`. Only the first answer, and only from the worker
    /// holding the item, is accepted; the item is then done and its credit free. The window
    /// moves on only when it is `written`.
    mutating func complete(_ item: ItemKey, from worker: [UInt8]) -> ResultVerdict {
        let verdict = judge(item, from: worker)
        if verdict == .accepted {
            workers[worker]?.inFlight.remove(item)
            jobs[item.job]?.markDone(item.item)
        }
        return verdict
    }

    /// `itemFailed` for `item` from `worker`: counts only from the worker holding it, which
    /// then no longer does. The item stays unfinished; the caller decides its fate.
    mutating func fail(_ item: ItemKey, from worker: [UInt8]) -> ResultVerdict {
        let verdict = judge(item, from: worker)
        if verdict == .accepted { workers[worker]?.inFlight.remove(item) }
        return verdict
    }

    /// What `complete` would make of an answer, without taking it: for checking the answer's
    /// contents before it counts.
    func verdict(_ item: ItemKey, from worker: [UInt8]) -> ResultVerdict {
        judge(item, from: worker)
    }

    private func judge(_ item: ItemKey, from worker: [UInt8]) -> ResultVerdict {
        guard let job = jobs[item.job] else { return .late }
        guard job.contains(item.item) else { return .unknownItem }
        if job.isDone(item.item) { return .late }
        guard workers[worker]?.inFlight.contains(item) == true else { return .notAssigned }
        return .accepted
    }

    /// Takes `item` back from `worker` without an answer (its read failed, or its result was
    /// refused) and queues it to be sent again.
    mutating func requeue(_ item: ItemKey, from worker: [UInt8]?) {
        if let worker { workers[worker]?.inFlight.remove(item) }
        jobs[item.job]?.requeue(item.item)
    }

    /// Marks `item` done without a result: nothing was left in it to send (every file in it
    /// had failed), or it failed for good. Frees the credit of whoever held it; with nothing to
    /// write, it no longer holds the window.
    mutating func settle(_ item: ItemKey) {
        for (id, worker) in workers where worker.inFlight.contains(item) {
            workers[id]?.inFlight.remove(item)
        }
        jobs[item.job]?.markWritten(item.item)
    }

    /// The blocks of an answered item are in their outputs (or were dropped with a failed
    /// file): the window may move past it.
    mutating func written(_ item: ItemKey) {
        jobs[item.job]?.markWritten(item.item)
    }
}

import SqueezeGzip

/// The dispatch policy, apart from all I/O: credit per worker, a window per job, a byte budget
/// for items that travel in messages, round-robin between clients and then between each
/// client's jobs, requeue on death, deadlines with a speculative copy, retries elsewhere for
/// items that went wrong, and which answers count. Events go in as method calls (with the
/// time, where it matters) and decisions come out as values; the `Coordinator` actor carries
/// them out (reads, sends, writes).
/// Unit-tested without sockets or clocks (SchedulerTests).
struct Scheduler: Sendable {
    /// One worker holding an item, and since when.
    private struct Holder: Sendable {
        var worker: PeerID
        var since: ContinuousClock.Instant
        /// The item's uncompressed bytes (0: unknown): its deadline grows with them.
        var bytes: UInt64
    }

    private(set) var workers: [PeerID: SchedulerWorker] = [:]
    private(set) var jobs: [JobID: SchedulerJob] = [:]
    /// Running jobs by client; dispatch goes round-robin over clients, then over their jobs.
    private var fair = FairOrder()
    /// Workers each item went wrong on: retries avoid them, and after enough the item gives up.
    private var retries: ItemRetries
    /// Who holds each item in flight: one worker, or two once a copy went out.
    private var holders: [ItemKey: [Holder]] = [:]
    /// Items `removeWorker` put back in the queues, with who held them and since when: that
    /// worker may still be compressing them, and takes them back (`adopt`) if it registers
    /// again before anyone else gets them. Forgotten once they go out again or are settled.
    private var orphans: [ItemKey: Holder] = [:]
    /// How long a holder may keep an item before a copy goes elsewhere.
    private(set) var deadline: ItemDeadline
    /// After a scan found no overdue item, the next waits until then: the scan walks
    /// every item in flight, and results arrive far more often than deadlines pass.
    private var quietUntil: ContinuousClock.Instant?
    /// Uncompressed bytes of items sent in messages and not yet written, across jobs, may reach
    /// this: their bytes pass through the coordinator (read buffers, results waiting for their
    /// turn), so it bounds its memory however many workers wait. One item always may go when
    /// none is charged, however large. Items sent by reference are not counted.
    let relayBudget: UInt64

    init(deadline: ItemDeadline = ItemDeadline(floor: .seconds(30), factor: 10), retries: ItemRetries = ItemRetries(),
         relayBudget: UInt64 = .max) {
        self.deadline = deadline
        self.retries = retries
        self.relayBudget = relayBudget
    }

    // MARK: - Workers

    /// Registers a worker that may hold `credit` items at once, and `relayCredit` (at most
    /// `credit`; nil: `credit`) of a job whose items it gets in messages. A worker that
    /// registers again (it reconnected) gives back what it held: those items are returned,
    /// already requeued.
    @discardableResult
    mutating func addWorker(_ id: PeerID, credit: Int, relayCredit: Int? = nil, engines: Set<CompressionEngine>) -> [ItemKey] {
        let requeued = removeWorker(id)
        let credit = max(0, credit)
        workers[id] = SchedulerWorker(credit: credit, relayCredit: min(credit, max(0, relayCredit ?? credit)), engines: engines)
        return requeued
    }

    /// Forgets a worker (it left, fell silent or could not be reached); the items only it held
    /// go to the front of their jobs' queues and are returned.
    @discardableResult
    mutating func removeWorker(_ id: PeerID) -> [ItemKey] {
        guard let worker = workers[id] else { return [] }
        var requeued: [ItemKey] = []
        for key in worker.inFlight.sorted(by: { ($0.job, $0.item) < ($1.job, $1.item) }) {
            let holder = holders[key]?.first { $0.worker == id }
            // An item whose copy is still out with another worker stays with that worker; one
            // already answered by the other copy needs nothing.
            if dropHolder(id, of: key), !isSettled(key) {
                requeued.append(key)
                if let holder { orphans[key] = holder }
            }
        }
        workers.removeValue(forKey: id)
        // Prepending in reverse keeps the lowest item first.
        for key in requeued.reversed() { jobs[key.job]?.requeue(key.item) }
        return requeued
    }

    /// Gives `id`, registered again, back those of the items it says it still holds (`claimed`)
    /// that it held when it was last removed and that nobody has been sent since: they leave
    /// the queues and count against its credit again, with their deadlines running from when
    /// they first went out. Nothing goes back to a worker without credit (quarantined).
    /// Returns the items kept, in order; the worker should drop every other item it holds.
    mutating func adopt(_ claimed: some Sequence<ItemKey>, by id: PeerID) -> [ItemKey] {
        guard let worker = workers[id], worker.credit > 0 else { return [] }
        var kept: [ItemKey] = []
        for key in Set(claimed).sorted(by: { ($0.job, $0.item) < ($1.job, $1.item) }) {
            guard let orphan = orphans[key], orphan.worker == id, holders[key] == nil, !isSettled(key) else { continue }
            orphans.removeValue(forKey: key)
            workers[id]?.inFlight.insert(key)
            holders[key] = [orphan]
            kept.append(key)
        }
        // One pass over each job's retries, however many items came back.
        for (job, keys) in Dictionary(grouping: kept, by: \.job) {
            let items = Set(keys.map(\.item))
            jobs[job]?.retry.removeAll { items.contains($0) }
        }
        return kept
    }

    /// Forgets that `worker` holds `key`; returns whether nobody holds it any more.
    private mutating func dropHolder(_ worker: PeerID, of key: ItemKey) -> Bool {
        workers[worker]?.inFlight.remove(key)
        guard var list = holders[key] else { return true }
        list.removeAll { $0.worker == worker }
        holders[key] = list.isEmpty ? nil : list
        return list.isEmpty
    }

    /// Holds back job `job`'s items from `worker` (until `resume`): how they should travel to
    /// it is not known yet.
    mutating func pause(_ job: JobID, on worker: PeerID) {
        workers[worker]?.paused.insert(job)
    }

    /// Lets `worker` have job `job`'s items again.
    mutating func resume(_ job: JobID, on worker: PeerID) {
        workers[worker]?.paused.remove(job)
    }

    /// Says whether `worker` reads and writes job `job`'s files itself (its items go to it by
    /// reference, outside the relay budget) or gets them in messages (the default).
    mutating func setReadsItself(_ job: JobID, on worker: PeerID, _ readsItself: Bool) {
        if readsItself {
            workers[worker]?.readsItself.insert(job)
        } else {
            workers[worker]?.readsItself.remove(job)
        }
    }

    /// Bytes charged to the relay budget now, across jobs.
    var relayedBytes: UInt64 { jobs.values.reduce(0) { $0 &+ $1.relayedBytes } }

    /// Whether some registered worker has `engine`.
    func canRun(_ engine: CompressionEngine) -> Bool {
        workers.values.contains { $0.engines.contains(engine) }
    }

    /// Items `id` holds now (0 for an unknown worker).
    func busy(_ id: PeerID) -> Int { workers[id]?.inFlight.count ?? 0 }

    /// Since when `worker` holds `item`, or nil when it does not.
    func heldSince(_ item: ItemKey, by worker: PeerID) -> ContinuousClock.Instant? {
        holders[item]?.first { $0.worker == worker }?.since
    }

    /// Items out with workers, over all jobs (a copy out twice counts twice).
    var itemsInFlight: Int { holders.values.reduce(0) { $0 + $1.count } }

    /// Items planned and not yet handed out, over all jobs, or for job `id`.
    func itemsQueued(job id: JobID? = nil) -> Int {
        guard let id else { return jobs.values.reduce(0) { $0 + $1.queuedCount } }
        return jobs[id]?.queuedCount ?? 0
    }

    /// Items of job `id` out with workers.
    func itemsInFlight(job id: JobID) -> [ItemKey] {
        holders.keys.filter { $0.job == id }
    }

    // MARK: - Jobs

    /// Adds a job of `items` items (ids 0..<items), dispatched at most `window` items ahead of
    /// its oldest unwritten one, to workers that have `engine`. `client` (the submitter's
    /// routing id) decides its turns: clients take turns, then their jobs.
    mutating func addJob(_ id: JobID, items: Int, window: Int, engine: CompressionEngine, client: PeerID = PeerID([])) {
        guard jobs[id] == nil else { return }
        jobs[id] = SchedulerJob(items: items, window: window, engine: engine)
        fair.add(id, client: client)
    }

    /// Sets job `id`'s window: items already out stay out; a smaller one holds back new
    /// dispatches until the written items catch up.
    mutating func setWindow(_ id: JobID, _ window: Int) {
        jobs[id]?.setWindow(window)
    }

    /// Appends `count` newly planned items to job `id` (the next ids), of `bytes` uncompressed
    /// bytes each (for their deadlines; missing: unknown), the first `urgent` of them before
    /// the job's waiting items, and sets its window.
    mutating func addItems(_ id: JobID, count: Int, window: Int, bytes: [UInt64] = [], urgent: Int = 0) {
        jobs[id]?.add(items: count, bytes: bytes, urgent: urgent)
        jobs[id]?.setWindow(window)
    }

    /// Items of job `id` planned and not yet sent (retries aside): the scan plans more when
    /// few are left.
    func unsent(of id: JobID) -> Int { jobs[id].map { $0.urgent.count + $0.pending.count } ?? 0 }

    /// Ends a job (finished, cancelled or failed). Returns the workers that held its items,
    /// which should be told to drop them; their credit is free again.
    mutating func removeJob(_ id: JobID) -> [PeerID] {
        guard jobs.removeValue(forKey: id) != nil else { return [] }
        fair.remove(id)
        retries.forget(job: id)
        let named = workers.compactMap { worker, state in state.inFlight.contains { $0.job == id } ? worker : nil }
        for worker in named {
            let kept = Set(workers[worker]?.inFlight.filter { $0.job != id } ?? [])
            workers[worker]?.inFlight = kept
        }
        for worker in workers.keys where workers[worker]?.readsItself.contains(id) == true {
            workers[worker]?.readsItself.remove(id)
        }
        holders = holders.filter { $0.key.job != id }
        orphans = orphans.filter { $0.key.job != id }
        return named.sorted()
    }

    /// Whether `item` is done, or its job has ended.
    func isSettled(_ item: ItemKey) -> Bool {
        guard let job = jobs[item.job] else { return true }
        return job.isDone(item.item)
    }

    /// Items done and items in total for a job (nil for an unknown job).
    func progress(of id: JobID) -> (done: Int, total: Int)? {
        jobs[id].map { ($0.doneCount, Int($0.planned.value)) }
    }

    // MARK: - Dispatch

    /// The next item to send and where: the next job (round-robin by client, then by job) with
    /// something sendable and a worker with free credit that has its engine; of those workers,
    /// the one with the most free credit. A retried item goes only to a worker it has not gone
    /// wrong on; one that cannot go anywhere now does not hold back the job's other items. The item counts against that worker's credit from now on. When nothing new
    /// can go out, an item held past its deadline goes, once, to a second worker as well: the
    /// first answer of the two wins, so a straggling or hoarding worker cannot hold up a job.
    /// Nil when no more can be sent.
    mutating func nextAssignment(now: ContinuousClock.Instant) -> Assignment? {
        if let fresh = nextFresh(now: now) { return fresh }
        return nextCopy(now: now)
    }

    private mutating func nextFresh(now: ContinuousClock.Instant) -> Assignment? {
        var cursor = fair.cursor()
        while let id = fair.next(&cursor) {
            // Read and updated in place: a copy of the job would make taking an item copy its queues.
            guard jobs[id]?.hasDispatchable == true, let engine = jobs[id]?.engine,
                  let (item, worker) = nextRetry(of: id, engine: engine) ?? nextPending(of: id, engine: engine) else { continue }
            fair.served(cursor)
            let key = ItemKey(job: id, item: item)
            hold(key, by: worker, now: now)
            return Assignment(worker: worker, item: key)
        }
        return nil
    }

    /// The first of job `id`'s retries that some worker with credit may take, and that worker.
    private mutating func nextRetry(of id: JobID, engine: CompressionEngine) -> (ItemID, PeerID)? {
        jobs[id]?.pruneRetries()
        guard let queue = jobs[id]?.retry, !queue.isEmpty else { return nil }
        for item in queue {
            guard let worker = freestWorker(for: ItemKey(job: id, item: item), with: engine,
                                            excluding: retries.excluded(ItemKey(job: id, item: item))) else { continue }
            jobs[id]?.removeRetry(item)
            return (item, worker)
        }
        return nil
    }

    /// Job `id`'s next item never sent, within its window, and the freest worker for it.
    private mutating func nextPending(of id: JobID, engine: CompressionEngine) -> (ItemID, PeerID)? {
        guard let item = jobs[id]?.peekPending(), let worker = freestWorker(for: ItemKey(job: id, item: item), with: engine) else { return nil }
        _ = jobs[id]?.takePending()
        return (item, worker)
    }

    private mutating func nextCopy(now: ContinuousClock.Instant) -> Assignment? {
        if let quietUntil, now < quietUntil { return nil }
        let overdue = holders.compactMap { key, list -> ItemKey? in
            guard list.count == 1, now - list[0].since > deadline.allowance(bytes: list[0].bytes),
                  jobs[key.job]?.isDone(key.item) == false else { return nil }
            return key
        }
        for key in overdue.sorted(by: { ($0.job, $0.item) < ($1.job, $1.item) }) {
            guard let engine = jobs[key.job]?.engine, let holder = holders[key]?.first?.worker,
                  let worker = freestWorker(for: key, with: engine, excluding: retries.excluded(key).union([holder])) else { continue }
            hold(key, by: worker, now: now)
            return Assignment(worker: worker, item: key)
        }
        // With overdue items left, the next free credit should go to them at once.
        if overdue.isEmpty { quietUntil = now + .milliseconds(100) }
        return nil
    }

    private mutating func hold(_ key: ItemKey, by worker: PeerID, now: ContinuousClock.Instant) {
        orphans.removeValue(forKey: key)
        workers[worker]?.inFlight.insert(key)
        if workers[worker]?.readsItself.contains(key.job) == false { jobs[key.job]?.chargeRelay(key.item) }
        holders[key, default: []].append(Holder(worker: worker, since: now, bytes: jobs[key.job]?.bytes(of: key.item) ?? 0))
    }

    /// The worker with the most free credit that may take `item` now: one with its engine, not
    /// excluded, not paused for its job, and, unless it reads the job's files itself, within
    /// its relay credit and only while the relay budget has room for the item. Ties go to the smaller routing id, so the
    /// same events always give the same decisions.
    private func freestWorker(for item: ItemKey, with engine: CompressionEngine, excluding excluded: Set<PeerID> = []) -> PeerID? {
        let job = item.job
        let mayRelay = relayFits(item)
        var best: (id: PeerID, available: Int)?
        for (id, worker) in workers where worker.engines.contains(engine) && !excluded.contains(id)
            && !worker.paused.contains(job) && (mayRelay || worker.readsItself.contains(job)) {
            let available = worker.available(for: job)
            guard available > 0 else { continue }
            if let current = best {
                guard available > current.available
                    || (available == current.available && id < current.id) else { continue }
            }
            best = (id, available)
        }
        return best?.id
    }

    /// Whether `item` may go to a worker in a message: it is charged already (a copy or a
    /// retry), nothing is charged, or it fits in what is left of the relay budget.
    private func relayFits(_ item: ItemKey) -> Bool {
        guard let job = jobs[item.job] else { return false }
        if job.isRelayed(item.item) { return true }
        let charged = relayedBytes
        guard charged > 0 else { return true }
        let (total, overflow) = charged.addingReportingOverflow(job.bytes(of: item.item))
        return !overflow && total <= relayBudget
    }

    // MARK: - Answers

    /// A result for `item` from `worker`. Only the first answer, and only from a worker
    /// holding the item, is accepted; the item is then done and that worker's credit free.
    /// The window moves on only when it is `written`.
    mutating func complete(_ item: ItemKey, from worker: PeerID, now: ContinuousClock.Instant) -> ResultVerdict {
        let verdict = judge(item, from: worker)
        switch verdict {
        case .accepted:
            if let holder = holders[item]?.first(where: { $0.worker == worker }) {
                deadline.observe(now - holder.since, bytes: holder.bytes)
            }
            // The other copy's worker keeps the item against its credit until it answers
            // (late) or dies: it is still compressing it.
            _ = dropHolder(worker, of: item)
            jobs[item.job]?.markDone(item.item)
            // Its retries are kept until it is written: a checked answer may still be refused.
        case .late:
            // The slower copy, done at last: its credit is free.
            if workers[worker]?.inFlight.contains(item) == true { _ = dropHolder(worker, of: item) }
        case .notAssigned, .unknownItem:
            break
        }
        return verdict
    }

    /// `itemFailed` for `item` from `worker`: counts only from a worker holding it, which then
    /// no longer does. With a copy still out elsewhere only this copy failed (`.late`); else
    /// the item stays unfinished and the caller decides its fate.
    mutating func fail(_ item: ItemKey, from worker: PeerID) -> ResultVerdict {
        let verdict = judge(item, from: worker)
        switch verdict {
        case .accepted:
            return dropHolder(worker, of: item) ? .accepted : .late
        case .late:
            if workers[worker]?.inFlight.contains(item) == true { _ = dropHolder(worker, of: item) }
        case .notAssigned, .unknownItem:
            break
        }
        return verdict
    }

    /// What `complete` would make of an answer, without taking it: for checking the answer's
    /// contents before it counts.
    func verdict(_ item: ItemKey, from worker: PeerID) -> ResultVerdict {
        judge(item, from: worker)
    }

    private func judge(_ item: ItemKey, from worker: PeerID) -> ResultVerdict {
        guard let job = jobs[item.job] else { return .late }
        guard job.contains(item.item) else { return .unknownItem }
        if job.isDone(item.item) { return .late }
        guard workers[worker]?.inFlight.contains(item) == true else { return .notAssigned }
        return .accepted
    }

    /// `item` went wrong on `worker`, which holds it: its `itemFailed`, or a result refused.
    /// The item is taken back and queued for a worker it has not gone wrong on, so it never
    /// bounces back to the same one; unless a copy is still out elsewhere (that copy decides),
    /// or it has gone wrong on `ItemRetries.limit` workers or no other connected worker with
    /// its engine is left to try (its files fail: `giveUp`, and the item is settled by the caller).
    mutating func wentWrong(_ item: ItemKey, on worker: PeerID) -> RetryDecision {
        // Only its holder's word counts: a forger must not use up an item's retries.
        guard judge(item, from: worker) == .accepted else { return .notHolder }
        _ = retries.record(item, on: worker)
        if !dropHolder(worker, of: item) { return .stillHeld }
        return retryElsewhere(item)
    }

    /// Whether some worker other than `worker`, and other than those `item` already went
    /// wrong on, may take `item` (it has credit and the job's engine).
    func canRetryElsewhere(_ item: ItemKey, than worker: PeerID) -> Bool {
        guard let engine = jobs[item.job]?.engine else { return false }
        let excluded = retries.excluded(item).union([worker])
        return workers.contains { $0.value.credit > 0 && $0.value.engines.contains(engine) && !excluded.contains($0.key) }
    }

    /// Queues `item`, which went wrong on the workers `retries` names, for another worker;
    /// gives it up when it has gone wrong on too many or no other worker may take it (a
    /// quarantined worker, with no credit, may not).
    private mutating func retryElsewhere(_ item: ItemKey) -> RetryDecision {
        let excluded = retries.excluded(item)
        guard !retries.isExhausted(item), let engine = jobs[item.job]?.engine,
              workers.contains(where: { $0.value.credit > 0 && $0.value.engines.contains(engine) && !excluded.contains($0.key) }) else {
            retries.forget(item)
            return .giveUp
        }
        jobs[item.job]?.requeue(item.item)
        return .retry
    }

    /// Retried items that no connected worker may take any more (every worker with their job's
    /// engine has gone wrong on them, after the others left): taken out of the queues and
    /// returned, so their files fail instead of waiting forever. With no worker for the engine
    /// connected at all they wait, like every item, for one to join.
    mutating func takeStranded() -> [ItemKey] {
        var stranded: [ItemKey] = []
        for key in retries.items where holders[key] == nil && !isSettled(key) {
            guard let engine = jobs[key.job]?.engine else { continue }
            let capable = workers.filter { $0.value.credit > 0 && $0.value.engines.contains(engine) }.keys
            let excluded = retries.excluded(key)
            if !capable.isEmpty, capable.allSatisfy(excluded.contains) { stranded.append(key) }
        }
        for key in stranded {
            jobs[key.job]?.removeRetry(key.item)
            retries.forget(key)
        }
        return stranded.sorted { ($0.job, $0.item) < ($1.job, $1.item) }
    }

    /// Takes `item` back from `worker` without an answer (its read failed: no fault of the
    /// worker's) and queues it to be sent again, unless a copy is still out elsewhere.
    mutating func requeue(_ item: ItemKey, from worker: PeerID?) {
        if let worker, !dropHolder(worker, of: item) { return }
        jobs[item.job]?.requeue(item.item)
    }

    /// An answer that `complete` accepted was refused after all (it failed verification, or
    /// its worker could not read the source): the item is unanswered again and, like an item
    /// that went wrong on its holder, goes to a worker it has not gone wrong on, unless a copy
    /// is still out with someone else; or is given up (its files fail) when none is left.
    mutating func reopen(_ item: ItemKey, refusing worker: PeerID) -> RetryDecision {
        guard jobs[item.job]?.contains(item.item) == true else { return .notHolder }
        jobs[item.job]?.reopen(item.item)
        // Already written or given up: there is nothing to take back.
        guard !isSettled(item) else { return .notHolder }
        _ = retries.record(item, on: worker)
        if holders[item]?.isEmpty == false { return .stillHeld }
        return retryElsewhere(item)
    }

    /// Stops giving `worker` work (its answers were refused too often): it stays registered
    /// with no credit, and the items it held go to the front of their jobs' queues.
    mutating func quarantine(_ worker: PeerID) {
        guard let engines = workers[worker]?.engines else { return }
        addWorker(worker, credit: 0, engines: engines)
    }

    /// Marks `item` done without a result: nothing was left in it to send (every file in it
    /// had failed), or it failed for good. Frees the credit of whoever held it; with nothing to
    /// write, it no longer holds the window.
    mutating func settle(_ item: ItemKey) {
        // The holders' list names who may hold it; iterating `workers` while changing it would copy it.
        for holder in holders[item] ?? [] {
            workers[holder.worker]?.inFlight.remove(item)
        }
        holders.removeValue(forKey: item)
        orphans.removeValue(forKey: item)
        jobs[item.job]?.markWritten(item.item)
        retries.forget(item)
    }

    /// The blocks of an answered item are in their outputs (or were dropped with a failed
    /// file): the window may move past it.
    mutating func written(_ item: ItemKey) {
        orphans.removeValue(forKey: item)
        jobs[item.job]?.markWritten(item.item)
        retries.forget(item)
    }
}

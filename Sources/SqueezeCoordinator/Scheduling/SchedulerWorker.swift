import SqueezeGzip

/// One worker as the scheduler sees it: what it may hold, what it holds, what it can run.
struct SchedulerWorker: Sendable {
    /// Items it may hold at once.
    let credit: Int
    /// Items it may hold at once when they travel in messages (at most `credit`): each one
    /// queued behind the one compressing is a payload held on its way, on both sides.
    let relayCredit: Int
    /// The engines it announced.
    let engines: Set<CompressionEngine>
    /// Items it holds now.
    var inFlight: Set<ItemKey> = []
    /// Jobs whose items it must not get for now (its storage probe for them is out).
    var paused: Set<JobID> = []
    /// Jobs whose files it reads and writes itself (shared storage): their items go to it as
    /// references and cost the coordinator no memory. Any other job's items travel in messages.
    var readsItself: Set<JobID> = []

    /// Free credit.
    var available: Int { credit - inFlight.count }

    /// Free credit for an item of job `job`: its relay credit unless it reads the job's files itself.
    func available(for job: JobID) -> Int {
        (readsItself.contains(job) ? credit : relayCredit) - inFlight.count
    }
}

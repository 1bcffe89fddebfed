/// How many jobs the coordinator takes at once, in all and from one client: a flood of
/// submits is refused with `tooMany` past the limits instead of becoming a backlog whose
/// bookkeeping (every tick and dispatch walks the running jobs) starves everything else. A
/// value with no I/O; the coordinator asks it before a job is prepared and tells it when a
/// job ends or fails to start.
struct JobAdmission: Sendable {
    /// Jobs running or being prepared at once, in all and per client.
    let maxJobs: Int
    let maxJobsPerClient: Int
    /// Jobs running or being prepared, in all and per client.
    private(set) var total = 0
    private(set) var byClient: [String: Int] = [:]

    /// Limits of `maxJobs` and `maxJobsPerClient` (at least 1 each).
    init(maxJobs: Int, maxJobsPerClient: Int) {
        self.maxJobs = max(1, maxJobs)
        self.maxJobsPerClient = max(1, maxJobsPerClient)
    }

    /// Takes a place for a job of `client` (its CURVE key's name, or its address), or says why
    /// there is none. `force` takes one whatever the limits (a job the journal resumes).
    mutating func admit(_ client: String, force: Bool = false) -> String? {
        if !force {
            if total >= maxJobs {
                return "tooMany: \(total) jobs are running or starting on this coordinator, its limit (--max-jobs \(maxJobs)); submit again once some have finished"
            }
            let mine = byClient[client, default: 0]
            if mine >= maxJobsPerClient {
                return "tooMany: \(mine) jobs from \(client) are running or starting, the limit per client (--max-jobs-per-client \(maxJobsPerClient)); submit again once some have finished"
            }
        }
        total += 1
        byClient[client, default: 0] += 1
        return nil
    }

    /// A job of `client` ended, or did not start: its place is free.
    mutating func release(_ client: String) {
        guard let mine = byClient[client], mine > 0 else { return }
        byClient[client] = mine > 1 ? mine - 1 : nil
        total = max(0, total - 1)
    }
}

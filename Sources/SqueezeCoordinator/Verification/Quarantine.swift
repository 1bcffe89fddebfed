/// Which workers sent results that failed the check, how often, and which of them get no
/// more work. A value with no I/O; the coordinator logs and carries out what it says.
///
/// Every refused result is a strike; at `threshold` strikes the worker is quarantined for the
/// rest of the coordinator's life, by routing id (its `workerID`), so reconnecting does not
/// lift it. Good results do not wipe strikes: a worker that is wrong one time in ten is as
/// unusable as one that is always wrong, since each wrong answer costs a retry.
struct Quarantine: Sendable {
    /// Strikes that quarantine a worker.
    let threshold: Int
    /// Refused results per worker.
    private(set) var strikes: [[UInt8]: Int] = [:]
    /// Workers that get no more work.
    private(set) var quarantined: Set<[UInt8]> = []

    /// A quarantine that acts at `threshold` refused results (at least 1).
    init(threshold: Int = 3) {
        self.threshold = max(1, threshold)
    }

    /// Counts a refused result from `worker` and says what it means.
    mutating func strike(_ worker: [UInt8]) -> Strike {
        guard !quarantined.contains(worker) else { return .repeated }
        let count = strikes[worker, default: 0] + 1
        strikes[worker] = count
        if count >= threshold {
            quarantined.insert(worker)
            return .quarantined
        }
        return count == 1 ? .first : .repeated
    }

    /// Quarantines `worker` at once, whatever its strikes (a caught collusion). Returns
    /// whether it was not quarantined already.
    mutating func quarantine(_ worker: [UInt8]) -> Bool {
        quarantined.insert(worker).inserted
    }

    /// Whether `worker` gets no more work.
    func isQuarantined(_ worker: [UInt8]) -> Bool { quarantined.contains(worker) }

    /// Refused results from `worker` so far.
    func strikes(of worker: [UInt8]) -> Int { strikes[worker] ?? 0 }
}

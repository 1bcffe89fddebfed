/// How many items a job may dispatch past its oldest unwritten one.
///
/// The window bounds the per-item state a job keeps between its oldest unwritten item and the
/// newest sent one. Memory for payload bytes is not its concern: items that travel in messages
/// are charged to the scheduler's relay budget, and items sent by reference (shared storage)
/// leave nothing here. So the window is as wide as the cluster, twice the workers' credit,
/// so every worker's queue stays full while answers wait for their checks and one large file
/// of few, large items spreads over every worker; and never narrower than 64 MiB over the
/// largest item, so a job of small items may run further ahead. Not the relay budget over
/// it: a budget of gigabytes would make a window of thousands of small items, each with its
/// files' bookkeeping, for no gain in throughput.
struct DispatchWindow: Equatable, Sendable {
    /// Bytes of items the window spans at least.
    var spanBytes: Int = 64 << 20

    /// The window, in items, for a job whose largest item is `largestItem` bytes, in a cluster
    /// whose workers may hold `credit` items at once.
    func items(largestItem: Int, credit: Int) -> Int {
        let byMemory = max(1, spanBytes / max(largestItem, 1))
        return max(byMemory, credit.multipliedReportingOverflow(by: 2).overflow ? Int.max : 2 * credit)
    }
}

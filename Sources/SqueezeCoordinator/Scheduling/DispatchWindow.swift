/// How many items a job may dispatch past its oldest unwritten one.
///
/// The window bounds what waits on the way to the output. When some worker gets the job's
/// items in messages, their bytes pass through this process (read buffers, results waiting
/// for their turn), so the window is the write-behind budget over the largest item: memory
/// stays bounded whatever the tree. When every worker reads and writes the files itself
/// (shared storage), nothing of them waits here, so the window may also be as wide as the
/// cluster: twice the workers' credit, so every worker's queue stays full while answers wait
/// for their checks, and one large file of few, large items still spreads over every worker.
struct DispatchWindow: Equatable, Sendable {
    /// Bytes that may wait in memory, across a job's items.
    var writeBehindBytes: Int

    /// The window, in items, for a job whose largest item is `largestItem` bytes; `bytesPassHere`
    /// when some worker gets (or may yet get) its items in messages; `credit` the items all
    /// workers may hold at once.
    func items(largestItem: Int, bytesPassHere: Bool, credit: Int) -> Int {
        let byMemory = max(1, writeBehindBytes / max(largestItem, 1))
        guard !bytesPassHere else { return byMemory }
        return max(byMemory, credit.multipliedReportingOverflow(by: 2).overflow ? Int.max : 2 * credit)
    }
}

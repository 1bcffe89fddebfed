import NIOCore

/// The consuming end of a `StageQueue`, for the one task that owns the stage.
struct StageConsumer<Element: Sendable>: Sendable {
    /// The stage it feeds.
    let stage: Stage
    /// The queue's elements; one iterator only.
    let elements: StageQueue<Element>.Elements
    /// Where the queue says it drained.
    let demand: StageDemand

    /// The owner's loop: `body` for each element in order; `drained` first each time the queue
    /// drained to its low watermark after it had been full.
    func consume(drained: (Stage) async -> Void, _ body: (Element) async -> Void) async {
        let iterator = elements.makeAsyncIterator()
        // swift-nio asks for more once when a consumer first waits on an empty queue: that is
        // no drain, and reported with the first element it could clear a real "full". No
        // element was taken before the first, so no real drain can be lost by skipping it.
        var first = true
        while let element = await iterator.next() {
            if demand.takeDrained(), !first { await drained(stage) }
            first = false
            await body(element)
        }
    }
}

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
        while let element = await iterator.next() {
            if demand.takeDrained() { await drained(stage) }
            await body(element)
        }
    }
}

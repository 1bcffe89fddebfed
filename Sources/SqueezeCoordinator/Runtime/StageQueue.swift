import NIOCore

/// The bounded queue between the coordinator and one of its stages, with one consumer: swift-nio's
/// `NIOAsyncSequenceProducer` with high and low watermarks (its sequence allows one iterator,
/// so one owner task takes everything). `push` never drops and never blocks the actor; it says
/// when the queue reached its high watermark, and the consumer says when it drained to its low
/// one, so the core stops feeding it (`StagePressure`) in between.
struct StageQueue<Element: Sendable>: Sendable {
    /// The sequence type its consumer iterates.
    typealias Elements = NIOAsyncSequenceProducer<Element, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, StageDemand>

    /// The stage it feeds.
    let stage: Stage
    private let source: Elements.Source

    /// A queue for `stage` that is full at `highWatermark` elements and drained at `lowWatermark`,
    /// and the consumer end, for the task that owns it (swift-nio wants the sequence held only there).
    static func make(_ stage: Stage, lowWatermark: Int, highWatermark: Int) -> (StageQueue, StageConsumer<Element>) {
        // With a low watermark of 0 a full queue would never count as drained.
        precondition(lowWatermark >= 1 && lowWatermark < highWatermark, "watermarks \(lowWatermark)/\(highWatermark)")
        let demand = StageDemand()
        let made = Elements.makeSequence(
            backPressureStrategy: .init(lowWatermark: lowWatermark, highWatermark: highWatermark), finishOnDeinit: false, delegate: demand)
        return (StageQueue(stage: stage, source: made.source), StageConsumer(stage: stage, elements: made.sequence, demand: demand))
    }

    /// Queues `element`; false when the queue is now at its high watermark (the element is kept).
    /// Once the queue is finished or its consumer gone (the coordinator stops), it is dropped.
    func push(_ element: Element) -> Bool {
        switch source.yield(element) {
        case .produceMore: true
        case .stopProducing: false
        // The consumer is gone (the coordinator is stopping): nothing waits for more.
        case .dropped: true
        }
    }

    /// Ends the queue: the consumer takes what is left, then its loop ends.
    func finish() {
        source.finish()
    }
}

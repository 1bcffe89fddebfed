import NIOConcurrencyHelpers
import NIOCore

/// The delegate of a `StageQueue`'s sequence: remembers that the queue drained to its low
/// watermark, for its consumer to tell the core (the delegate is called on the consumer's task,
/// inside `next()`, where it cannot await the actor).
final class StageDemand: NIOAsyncSequenceProducerDelegate, Sendable {
    private let drained = NIOLockedValueBox(false)

    /// The queue drained after it had reached its high watermark.
    func produceMore() {
        drained.withLockedValue { $0 = true }
    }

    /// The consumer stopped or the queue finished: nothing to tell.
    func didTerminate() {}

    /// Whether the queue drained since the last call.
    func takeDrained() -> Bool {
        drained.withLockedValue { drained in
            defer { drained = false }
            return drained
        }
    }
}

import Testing
@testable import SqueezeCoordinator

/// The bounded queue between the actor and a stage: it keeps everything, says when it is full,
/// and says once when it drained.
@Suite("StageQueue")
struct StageQueueTests {
    @Test("push says full at the high watermark and keeps every element; the consumer gets them all, in order")
    func fullAtHighWatermark() async {
        let (queue, consumer) = StageQueue<Int>.make(.check, lowWatermark: 2, highWatermark: 4)
        let accepted = (0..<6).map { queue.push($0) }
        #expect(accepted == [true, true, true, false, false, false])
        queue.finish()
        var taken: [Int] = []
        await consumer.consume(drained: { _ in }) { taken.append($0) }
        #expect(taken == Array(0..<6))
    }

    @Test("a queue that was full reports drained once, when its consumer takes it down to the low watermark")
    func drainedOnce() async {
        let (queue, consumer) = StageQueue<Int>.make(.write(partition: 3), lowWatermark: 2, highWatermark: 4)
        for element in 0..<5 { _ = queue.push(element) }
        var reports: [(stage: Stage, before: Int)] = []
        var taken = 0
        // Finished only once all is taken: a finished queue has no demand to report.
        await consumer.consume(drained: { reports.append(($0, taken)) }) { _ in
            taken += 1
            if taken == 5 { queue.finish() }
        }
        #expect(taken == 5)
        #expect(reports.count == 1 && reports.first?.stage == .write(partition: 3))
        // Five queued (full at four); it counts as drained below two left: as the fourth is
        // taken, with three handled.
        #expect(reports.first?.before == 3)
    }

    @Test("a queue that never filled never reports drained")
    func neverFull() async {
        let (queue, consumer) = StageQueue<Int>.make(.scan, lowWatermark: 2, highWatermark: 4)
        for element in 0..<3 { #expect(queue.push(element)) }
        var reports = 0
        var taken = 0
        await consumer.consume(drained: { _ in reports += 1 }) { _ in
            taken += 1
            if taken == 3 { queue.finish() }
        }
        #expect(taken == 3 && reports == 0)
    }
}

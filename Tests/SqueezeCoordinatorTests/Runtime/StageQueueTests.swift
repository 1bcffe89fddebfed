import NIOConcurrencyHelpers
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

    @Test("a queue that never filled never reports drained, whether its consumer waited first or not", arguments: [false, true])
    func neverFull(consumerFirst: Bool) async {
        let (queue, consumer) = StageQueue<Int>.make(.scan, lowWatermark: 2, highWatermark: 4)
        var reports = 0
        var taken = 0
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // The consumer may start on an empty queue, as the coordinator's tasks do.
                if consumerFirst { try? await Task.sleep(for: .milliseconds(20)) }
                for element in 0..<3 { _ = queue.push(element) }
            }
            if !consumerFirst { await group.next() }
            await consumer.consume(drained: { _ in reports += 1 }) { _ in
                taken += 1
                if taken == 3 { queue.finish() }
            }
        }
        #expect(taken == 3 && reports == 0)
    }

    @Test("a consumer that waits on an empty queue before a burst fills it reports drained once, after the burst drains")
    func consumerFirstThenFull() async {
        let (queue, consumer) = StageQueue<Int>.make(.check, lowWatermark: 2, highWatermark: 4)
        let pushed = NIOLockedValueBox(false)
        var reports: [Int] = []
        var taken = 0
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(20))
                #expect((0..<6).map { queue.push($0) }.contains(false), "the burst fills the queue")
                pushed.withLockedValue { $0 = true }
            }
            await consumer.consume(drained: { _ in reports.append(taken) }) { _ in
                // The first element waits for the whole burst, so the queue fills behind it.
                while !pushed.withLockedValue({ $0 }) { await Task.yield() }
                taken += 1
                if taken == 6 { queue.finish() }
            }
        }
        // Once, as it drains below two: not at the first element, for the wait on the empty queue.
        #expect(taken == 6 && reports.count == 1 && (reports.first ?? 0) >= 1, "\(reports)")
    }

    @Test("watermarks that could not work are refused: a low one of 0 would never count as drained")
    func watermarksChecked() async {
        await #expect(processExitsWith: .failure) {
            _ = StageQueue<Int>.make(.scan, lowWatermark: 0, highWatermark: 4)
        }
    }
}

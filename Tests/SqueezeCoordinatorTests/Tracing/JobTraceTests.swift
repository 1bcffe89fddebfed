import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

/// The trace recorder with made-up times: what each attempt becomes, and what a chunk carries.
struct JobTraceTests {
    private let a: PeerID = "worker-a"
    private let b: PeerID = "worker-b"
    private func info(_ id: String) -> JobTrace.WorkerInfo { JobTrace.WorkerInfo(workerID: id, host: "h", slots: 2) }

    @Test("an answered, checked and written item: times relative to the job's start, worker times mapped and kept inside the dispatch")
    func writtenAttempt() throws {
        var trace = JobTrace(jobID: 1, start: 1_000)
        trace.queued([0, 1], at: 1_100)
        trace.dispatched(0, to: a, worker: info("a"), blocks: 2, bytes: 4096, at: 1_200, clockOffset: nil)
        // The worker's clock runs 500_000 µs behind; its end is mapped past the answer and clamped to it.
        let timing = ItemTiming(jobID: 1, itemID: 0, slot: 1, receivedAt: -400_000 + 500_000, startedAt: 500_300 - 500_000 + 500_000,
                                endedAt: 500_000 + 2_000, readMicros: 0, compressMicros: 500, writeMicros: 0)
        trace.timing(timing, from: a, offset: -500_000 + 0, receivedAt: 1_900)
        trace.answered(0, by: a, at: 1_900, won: true)
        trace.verified(0, at: 2_000)
        let early = trace.take()
        #expect(early?.attempts.isEmpty ?? true, "nothing ended before it is written")
        #expect(early?.workers.map(\.workerID) == ["a"], "a worker is named in the first chunk after its first dispatch")
        trace.written(0, at: 2_500)
        let taken = trace.take()
        let chunk = try #require(taken)
        let attempt = try #require(chunk.attempts.first)
        #expect(attempt.outcome == "written")
        #expect(attempt.queuedAt == 100 && attempt.dispatchedAt == 200)
        #expect(attempt.answeredAt == 900 && attempt.verifiedAt == 1_000 && attempt.writtenAt == 1_500)
        #expect(attempt.slot == 1 && attempt.compressMicros == 500)
        let start = try #require(attempt.workerStart), end = try #require(attempt.workerEnd)
        #expect(start >= attempt.dispatchedAt && end <= 900 && start <= end, "kept inside the dispatch: \(start)…\(end)")
        #expect(chunk.workers.isEmpty, "and only once")
        #expect(trace.take() == nil)
    }

    @Test("a worker lost: its unanswered attempt is requeued; the next attempt is numbered 2; a late answer is late; the end abandons the rest")
    func outcomes() throws {
        var trace = JobTrace(jobID: 1, start: 0)
        trace.queued([0, 1, 2], at: 0)
        trace.dispatched(0, to: a, worker: info("a"), blocks: 1, bytes: 1, at: 10, clockOffset: nil)
        trace.dispatched(1, to: a, worker: info("a"), blocks: 1, bytes: 1, at: 10, clockOffset: nil)
        trace.workerLost(a, at: 50)
        trace.dispatched(0, to: b, worker: info("b"), blocks: 1, bytes: 1, at: 60, clockOffset: 7)
        trace.answered(0, by: b, at: 70, won: true)
        trace.written(0, at: 80)
        trace.dispatched(1, to: b, worker: info("b"), blocks: 1, bytes: 1, at: 90, clockOffset: 7)
        trace.dispatched(2, to: b, worker: info("b"), blocks: 1, bytes: 1, at: 90, clockOffset: 7)
        trace.answered(1, by: b, at: 95, won: true)
        trace.refused(1, at: 96)
        let finished = trace.finish(at: 100)
        let last = try #require(finished)
        var all = last.attempts
        all.sort { ($0.item, $0.attempt) < ($1.item, $1.attempt) }
        #expect(all.map { "\($0.item).\($0.attempt):\($0.outcome)" } == ["0.1:requeued", "0.2:written", "1.1:requeued", "1.2:refused", "2.1:abandoned"])
        #expect(last.workers.map(\.index) == [1, 2])
        #expect(last.workers.last?.clockOffsetMicros == 7)
        #expect(trace.openAttempts == 0)
    }

    @Test("clock offsets keep the smallest sample, and forget a worker that left")
    func offsets() {
        var clocks = ClockOffsets()
        #expect(clocks.offset(of: a) == nil)
        clocks.sample(a, sent: 100, received: 1_150)
        clocks.sample(a, sent: 200, received: 1_210)
        clocks.sample(a, sent: 300, received: 1_400)
        #expect(clocks.offset(of: a) == 1_010)
        clocks.forget(a)
        #expect(clocks.offset(of: a) == nil)
    }

    @Test("a worker's timing with times out of order, phases longer than the item, or a slot it does not have is refused")
    func timingDefects() {
        let good = ItemTiming(jobID: 1, itemID: 1, slot: 0, receivedAt: 10, startedAt: 20, endedAt: 120, readMicros: 10, compressMicros: 80, writeMicros: 10)
        #expect(good.defect(slots: 1) == nil)
        var bad = good
        bad.slot = 1
        #expect(bad.defect(slots: 1) != nil)
        bad = good
        bad.startedAt = 5
        #expect(bad.defect(slots: 1) != nil)
        bad = good
        bad.compressMicros = 95
        #expect(bad.defect(slots: 1) != nil)
        bad = good
        bad.endedAt = .max
        #expect(bad.defect(slots: 1) != nil)
        bad = good
        bad.readMicros = -1
        #expect(bad.defect(slots: 1) != nil)
    }
}

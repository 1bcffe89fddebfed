import Foundation
import SqueezeObservability
import SqueezeProtocol
import Testing

struct ChromeTraceTests {
    private func attempt(_ item: UInt64, worker: Int, slot: Int?, from start: Int64, to end: Int64, outcome: String = "written") -> TracedAttempt {
        var attempt = TracedAttempt(item: item, attempt: 1, worker: worker, blocks: 1, bytes: 100, queuedAt: 0, dispatchedAt: start)
        attempt.outcome = outcome
        attempt.slot = slot
        if slot != nil {
            attempt.workerStart = start
            attempt.workerEnd = end
            attempt.compressMicros = (end - start) / 2
        }
        if outcome == "written" {
            attempt.answeredAt = end
            attempt.writtenAt = end + 10
        } else {
            attempt.endedAt = end
        }
        return attempt
    }

    private func events(_ trace: ChromeTrace) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: trace.render()) as? [String: Any]
        return object?["traceEvents"] as? [[String: Any]] ?? []
    }

    @Test("items go on their slot's lane with their phase nested; a slot's items never overlap, even with skewed clocks")
    func slots() throws {
        var trace = ChromeTrace(title: "job 1")
        trace.add(TraceChunk(
            jobID: 1, workers: [TraceWorker(index: 1, workerID: "w1", host: "h", slots: 2, clockOffsetMicros: 0)],
            attempts: [attempt(0, worker: 1, slot: 0, from: 0, to: 100), attempt(1, worker: 1, slot: 0, from: 95, to: 200),
                       attempt(2, worker: 1, slot: 1, from: 10, to: 50)]))
        let all = try events(trace)
        let items = all.filter { $0["ph"] as? String == "X" && ($0["name"] as? String)?.hasPrefix("item") == true }
        #expect(items.count == 3)
        let slot1 = items.filter { $0["tid"] as? Int == 1 }.sorted { ($0["ts"] as? Int ?? 0) < ($1["ts"] as? Int ?? 0) }
        #expect(slot1.count == 2)
        #expect((slot1[1]["ts"] as? Int ?? 0) >= (slot1[0]["ts"] as? Int ?? 0) + (slot1[0]["dur"] as? Int ?? 0), "cut to the previous end")
        #expect(items.allSatisfy { $0["pid"] as? Int == 2 })
        let phases = all.filter { $0["cat"] as? String == "phase" }
        #expect(phases.count == 3 && phases.allSatisfy { $0["name"] as? String == "compress" })
        let names = all.filter { $0["name"] as? String == "thread_name" && $0["pid"] as? Int == 2 }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(Set(names) == ["slot 1", "slot 2"])
    }

    @Test("a worker without timings gets packed lanes; the coordinator's writes get lanes of their own; counters are counter events")
    func untimed() throws {
        var trace = ChromeTrace(title: "job 1")
        trace.add(TraceChunk(
            jobID: 1, workers: [TraceWorker(index: 1, workerID: "old", host: "h", slots: 1, clockOffsetMicros: nil)],
            attempts: [attempt(0, worker: 1, slot: nil, from: 0, to: 100), attempt(1, worker: 1, slot: nil, from: 50, to: 150),
                       attempt(2, worker: 1, slot: nil, from: 120, to: 160, outcome: "requeued")],
            counters: [TraceCounters(at: 5, queued: 1, inFlight: 2, bytesInFlight: 3, unwritten: 0)]))
        let all = try events(trace)
        let items = all.filter { $0["ph"] as? String == "X" && $0["pid"] as? Int == 2 }
        #expect(Set(items.compactMap { $0["tid"] as? Int }).count == 2, "two overlapping items need two lanes, the third reuses one")
        #expect(all.contains { $0["ph"] as? String == "i" && ($0["name"] as? String)?.hasPrefix("requeued") == true })
        #expect(all.contains { $0["ph"] as? String == "X" && $0["pid"] as? Int == 1 && ($0["name"] as? String)?.hasPrefix("write item") == true })
        #expect(all.filter { $0["ph"] as? String == "C" }.count == 2)
    }
}

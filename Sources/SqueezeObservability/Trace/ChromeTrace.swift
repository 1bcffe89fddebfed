import Foundation
import SqueezeProtocol

/// A job's trace (the `trace` events of `--trace`) in the Chrome trace-event format, which
/// Perfetto (ui.perfetto.dev) and `chrome://tracing` open. Process 1 is the coordinator: its
/// reads for remote workers, its result checks and its writes, each on lanes of their own, and
/// its queue counters. Each worker is a process with one lane per slot, and each dispatch of an
/// item is one complete event there, with its read, compress and write phases nested inside
/// (drawn one after another, as totals over the item's blocks) and every phase's duration in
/// its `args`. A worker that sent no timings gets lanes packed from the coordinator's own send
/// and receive times instead.
public struct ChromeTrace: Sendable {
    private let title: String
    private var workers: [Int: TraceWorker] = [:]
    private var attempts: [TracedAttempt] = []
    private var counters: [TraceCounters] = []

    /// Coordinator lanes, by activity: their tids start at these bases.
    private static let readerLanes = 100, checkLanes = 200, writeLanes = 300
    /// Lanes of a worker without timings start here.
    private static let untimedLanes = 1000

    /// An empty trace of the job named `title` (its id and source).
    public init(title: String) {
        self.title = title
    }

    /// Adds one `trace` event's chunk.
    public mutating func add(_ chunk: TraceChunk) {
        for worker in chunk.workers { workers[worker.index] = worker }
        attempts += chunk.attempts
        counters += chunk.counters
    }

    /// Dispatches recorded.
    public var attemptCount: Int { attempts.count }

    /// The trace as JSON (the object form, with `traceEvents`).
    public func render() throws -> Data {
        let document = Document(traceEvents: events(), otherData: ["job": title, "clock": "coordinator, microseconds since the job started"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(document)
    }

    private struct Document: Encodable {
        var traceEvents: [TraceEvent]
        var displayTimeUnit = "ms"
        var otherData: [String: String]
    }

    // MARK: - Events

    private func events() -> [TraceEvent] {
        var events: [TraceEvent] = [
            .metadata("process_name", pid: 1, args: ["name": .text("coordinator")]),
            .metadata("process_sort_index", pid: 1, args: ["sort_index": .int(0)]),
        ]
        for worker in workers.values.sorted(by: { $0.index < $1.index }) {
            let pid = 1 + worker.index
            events.append(.metadata("process_name", pid: pid, args: ["name": .text("worker \(worker.workerID) (\(worker.host))")]))
            events.append(.metadata("process_sort_index", pid: pid, args: ["sort_index": .int(Int64(worker.index))]))
        }
        let ordered = attempts.sorted { ($0.workerStart ?? $0.dispatchedAt, $0.item, $0.attempt) < ($1.workerStart ?? $1.dispatchedAt, $1.item, $1.attempt) }
        events += workerEvents(ordered)
        events += coordinatorEvents(ordered)
        for sample in counters {
            events.append(TraceEvent(name: "items", ph: "C", ts: sample.at, pid: 1, args: [
                "queued": .int(Int64(sample.queued)), "in flight": .int(Int64(sample.inFlight)), "unwritten": .int(Int64(sample.unwritten)),
            ]))
            events.append(TraceEvent(name: "bytes in flight", ph: "C", ts: sample.at, pid: 1, args: ["bytes": .int(Int64(sample.bytesInFlight))]))
        }
        return events
    }

    /// One complete event per attempt on its worker's slot, its phases nested.
    private func workerEvents(_ ordered: [TracedAttempt]) -> [TraceEvent] {
        var events: [TraceEvent] = []
        var slotEnds: [Int: [Int: Int64]] = [:]  // pid → slot tid → last end
        var untimed: [Int: LanePacker] = [:]
        var named = Set<[Int]>()
        for attempt in ordered {
            let pid = 1 + attempt.worker
            var start = attempt.workerStart ?? attempt.dispatchedAt
            let end = attempt.workerEnd ?? attempt.answeredAt ?? attempt.endedAt ?? start
            let tid: Int
            let label: String
            if let slot = attempt.slot {
                tid = slot + 1
                label = "slot \(slot + 1)"
                // Offsets are estimates: a hair of overlap with the slot's previous item is cut.
                start = max(start, slotEnds[pid]?[tid] ?? start)
                slotEnds[pid, default: [:]][tid] = max(end, start)
            } else {
                let lane = untimed[pid, default: LanePacker()].place(from: start, to: end)
                tid = Self.untimedLanes + lane
                label = "lane \(lane + 1) (no worker timings)"
            }
            if named.insert([pid, tid]).inserted {
                events.append(.metadata("thread_name", pid: pid, tid: tid, args: ["name": .text(label)]))
                events.append(.metadata("thread_sort_index", pid: pid, tid: tid, args: ["sort_index": .int(Int64(tid))]))
            }
            let finish = max(start, end)
            let name = attempt.attempt > 1 ? "item \(attempt.item) (attempt \(attempt.attempt))" : "item \(attempt.item)"
            events.append(.complete(name, category: attempt.outcome, pid: pid, tid: tid, from: start, to: finish, args: arguments(of: attempt)))
            // Phases as consecutive totals inside the item, clipped to it.
            var cursor = start
            for (phase, micros) in [("read", attempt.workerReadMicros), ("compress", attempt.compressMicros), ("write", attempt.workerWriteMicros)] {
                guard let micros, micros > 0, cursor < finish else { continue }
                let phaseEnd = min(finish, cursor + micros)
                events.append(.complete(phase, category: "phase", pid: pid, tid: tid, from: cursor, to: phaseEnd))
                cursor = phaseEnd
            }
            if attempt.outcome != "written", let ended = attempt.endedAt {
                events.append(TraceEvent(name: "\(attempt.outcome): item \(attempt.item)", cat: attempt.outcome, ph: "i", ts: ended, pid: pid, tid: tid, s: "t"))
            }
        }
        return events
    }

    /// The coordinator's part: reads for remote workers, result checks, writes.
    private func coordinatorEvents(_ ordered: [TracedAttempt]) -> [TraceEvent] {
        var spans: [(kind: Int, name: String, start: Int64, end: Int64, item: UInt64)] = []
        for attempt in ordered {
            if let start = attempt.readStart, let end = attempt.readEnd {
                spans.append((Self.readerLanes, "read item \(attempt.item)", start, end, attempt.item))
            }
            if let answered = attempt.answeredAt, let verified = attempt.verifiedAt {
                spans.append((Self.checkLanes, "check item \(attempt.item)", answered, verified, attempt.item))
            }
            if let written = attempt.writtenAt, let from = attempt.verifiedAt ?? attempt.answeredAt {
                spans.append((Self.writeLanes, "write item \(attempt.item)", from, written, attempt.item))
            }
        }
        spans.sort { ($0.start, $0.kind) < ($1.start, $1.kind) }
        var packers: [Int: LanePacker] = [:]
        var events: [TraceEvent] = []
        var named = Set<Int>()
        let kinds = [Self.readerLanes: "read", Self.checkLanes: "check", Self.writeLanes: "write"]
        for span in spans {
            let lane = packers[span.kind, default: LanePacker()].place(from: span.start, to: span.end)
            let tid = span.kind + lane
            if named.insert(tid).inserted {
                let kind = kinds[span.kind] ?? "work"
                events.append(.metadata("thread_name", pid: 1, tid: tid, args: ["name": .text("\(kind) \(lane + 1)")]))
                events.append(.metadata("thread_sort_index", pid: 1, tid: tid, args: ["sort_index": .int(Int64(tid))]))
            }
            events.append(.complete(span.name, category: kinds[span.kind] ?? "work", pid: 1, tid: tid, from: span.start, to: span.end,
                                    args: ["item": .int(Int64(clamping: span.item))]))
        }
        return events
    }

    private func arguments(of attempt: TracedAttempt) -> [String: TraceArgument] {
        var args: [String: TraceArgument] = [
            "item": .int(Int64(clamping: attempt.item)), "attempt": .int(Int64(attempt.attempt)), "outcome": .text(attempt.outcome),
            "bytes": .int(Int64(attempt.bytes)), "blocks": .int(Int64(attempt.blocks)),
            "queued ms": .number(Double(attempt.dispatchedAt - attempt.queuedAt) / 1000),
        ]
        func milliseconds(_ key: String, _ micros: Int64?) {
            if let micros { args[key] = .number(Double(micros) / 1000) }
        }
        if let start = attempt.readStart, let end = attempt.readEnd { milliseconds("coordinator read ms", end - start) }
        milliseconds("worker read ms", attempt.workerReadMicros)
        milliseconds("compress ms", attempt.compressMicros)
        milliseconds("worker write ms", attempt.workerWriteMicros)
        if let start = attempt.workerStart, let end = attempt.workerEnd { milliseconds("on worker ms", end - start) }
        if let answered = attempt.answeredAt, let verified = attempt.verifiedAt { milliseconds("check ms", verified - answered) }
        if let written = attempt.writtenAt, let from = attempt.verifiedAt ?? attempt.answeredAt { milliseconds("write ms", written - from) }
        if let end = attempt.writtenAt ?? attempt.endedAt { milliseconds("total ms", end - attempt.queuedAt) }
        return args
    }
}

import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// The slots: the worker's item queue, compression on the worker's own threads, and answers,
/// which leave on the current session or wait in `HeldWork` for the coordinator's `keep`.
extension Worker {
    /// The one owner of the worker's item queue: it hands each item to a free slot, at most
    /// `slots` at once, each slot with its own compressor.
    func runSlots(_ queue: AsyncStream<ReceivedTask>) async {
        let compressors = (0..<configuration.slots).map { _ in SlotCompressor(wholeTableLieForTesting: configuration.wholeTableLieForTesting) }
        await withTaskGroup(of: Int.self) { group in
            var free = Array((0..<configuration.slots).reversed())
            for await received in queue {
                if free.isEmpty, let slot = await group.next() { free.append(slot) }
                guard let slot = free.popLast() else { continue }
                group.addTask {
                    await self.compress(received, slot: slot, compressor: compressors[slot])
                    return slot
                }
            }
        }
    }

    /// Compresses one item on a compression thread and sends its answer (or `itemFailed`), or
    /// keeps the answer for the next session when no coordinator is listening.
    private func compress(_ received: ReceivedTask, slot: Int, compressor: SlotCompressor) async {
        let item = received.task
        let skip = state.withLockedValue { state in
            guard !state.draining, !state.abandon, !state.cancelledJobs.contains(item.jobID),
                  state.held.start(received.key, arrival: received.arrival) else {
                state.held.drop(received.key, arrival: received.arrival)
                return true
            }
            state.busy += 1
            return false
        }
        if skip { return }
        metrics.busySlots.increment()
        defer {
            state.withLockedValue { $0.busy -= 1 }
            metrics.busySlots.decrement()
        }
        let startedAt = MonotonicClock.micros()
        var phases = ItemPhases()
        let answer: ItemAnswer?
        do {
            let job = item.jobID
            let stop: @Sendable () -> Bool = { self.state.withLockedValue { $0.abandon || $0.cancelledJobs.contains(job) } }
            let delay = configuration.itemDelayForTesting?.sleepMicroseconds
            (answer, phases) = try await compressionPool.run {
                if let delay { usleep(delay) }
                var phases = ItemPhases()
                let answer: ItemAnswer? = switch item {
                case .payload(let work): try compressor.compress(work, phases: &phases, shouldStop: stop).map { ItemAnswer(.result($0)) }
                case .reference(let work): try compressor.compress(work, phases: &phases, shouldStop: stop).map { ItemAnswer(.resultRef($0)) }
                case .scan(let scan): try self.scan(scan, compressor: compressor, phases: &phases, shouldStop: stop)
                }
                return (answer, phases)
            }
        } catch {
            logger.error("item failed: \(error)", metadata: ["job": "\(item.jobID)", "item": "\(item.itemID)"])
            deliver(ItemAnswer(.itemFailed(ItemFailure(jobID: item.jobID, itemID: item.itemID, reason: "\(error)"))),
                    of: received, timing: (slot, startedAt, phases))
            metrics.itemsFailed.increment()
            return
        }
        guard let answer else {
            state.withLockedValue { $0.held.drop(received.key, arrival: received.arrival) }
            return
        }
        deliver(answer, of: received, timing: (slot, startedAt, phases))
        state.withLockedValue { $0.itemsDone += 1 }
        metrics.count(answer.whole, startedAt: startedAt, phases: phases)
    }

    /// Blocking: lists a slice and compresses its small files as a batch. The listing leaves
    /// at once when the worker is registered, before the files are compressed, so the
    /// coordinator plans what it found meanwhile; the answer is the whole `scanned` with the
    /// pieces, of which only the pieces leave if the registration the listing left on is still
    /// current (`ItemAnswer`). Nil when told to stop.
    private func scan(
        _ scan: ScanAssignment, compressor: SlotCompressor, phases: inout ItemPhases, shouldStop: @Sendable () -> Bool
    ) throws -> ItemAnswer? {
        var (report, batch) = phases.time(\.readMicros) { scan.list(omitting: configuration.scanOmissionForTesting) }
        guard let batch else { return ItemAnswer(.scanned(report)) }
        let (session, registration) = state.withLockedValue { ($0.session, $0.registration) }
        if let session, registration != nil { session.send(ZMQMessage(WireCodec.encode(.scanned(report)))) }
        guard let result = try compressor.compress(batch.reference, phases: &phases, shouldStop: shouldStop) else { return nil }
        report.result = result
        return ItemAnswer(scanned: report, listedOn: registration)
    }

    /// Sends an item's answer on the current session, once the coordinator has welcomed this
    /// worker; until then `HeldWork` keeps it for the coordinator's `keep`.
    private func deliver(_ answer: ItemAnswer, of received: ReceivedTask, timing: (slot: Int, startedAt: Int64, phases: ItemPhases)) {
        let (now, endpoint) = state.withLockedValue { state in
            (state.held.finish(received.key, arrival: received.arrival, answer: answer, registration: state.registration), state.session)
        }
        guard let now, let endpoint else { return }
        // Before the answer, on the same socket: the coordinator has it when the answer comes.
        sendTiming(of: received, slot: timing.slot, startedAt: timing.startedAt, phases: timing.phases, on: endpoint)
        endpoint.send(ZMQMessage(WireCodec.encode(now)))
        sendHeldReports(on: endpoint)
    }

    /// Tells a coordinator that asked for timings when and where an item ran.
    private func sendTiming(of received: ReceivedTask, slot: Int, startedAt: Int64, phases: ItemPhases, on endpoint: ZMQEndpoint) {
        guard state.withLockedValue({ $0.timings }) else { return }
        let timing = ItemTiming(
            jobID: received.task.jobID, itemID: received.task.itemID, slot: slot, receivedAt: received.receivedAt, startedAt: startedAt,
            endedAt: max(startedAt, MonotonicClock.micros()), readMicros: phases.readMicros, compressMicros: phases.compressMicros,
            writeMicros: phases.writeMicros)
        endpoint.send(ZMQMessage(WireCodec.encode(.timing(timing))))
    }
}

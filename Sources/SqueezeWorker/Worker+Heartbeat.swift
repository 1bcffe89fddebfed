import CoreMetrics
import Glibc
import Logging
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import NIOConcurrencyHelpers
import SqueezeZMQ

/// A session's heartbeat: the worker's side of liveness (docs/protocol.md, "Heartbeats").
extension Worker {
    /// Sends a heartbeat every interval, declares the coordinator lost after `liveness` silent
    /// intervals, and ends the session once a drain has finished (or run out of grace).
    func heartbeat(on endpoint: ZMQEndpoint) async -> WorkerSessionEnd? {
        var lastClock = ContinuousClock.now
        var lastAsked = ContinuousClock.now
        var drainingSince: ContinuousClock.Instant?
        while !Task.isCancelled {
            let (interval, liveness) = state.withLockedValue { ($0.heartbeatInterval, $0.liveness) }
            try? await Task.sleep(for: min(interval, .milliseconds(100)))
            if Task.isCancelled { break }
            let (lastHeard, draining, busy) = state.withLockedValue { ($0.lastHeard, $0.draining, $0.busy) }
            let now = ContinuousClock.now
            sendHeldReports(on: endpoint, unlessYoungerThan: Self.reportHoldLimit, now: now)
            if draining {
                let since = drainingSince ?? now
                drainingSince = since
                if busy == 0 { return .stopped }
                if now - since > configuration.drainGrace {
                    state.withLockedValue { $0.abandon = true }
                    logger.warning("drain grace ran out; handing back the items still held")
                    return .stopped
                }
            }
            if now - lastHeard > interval * liveness { return .coordinatorLost }
            // Any message is a sign of life: a heartbeat only after an interval without one,
            // or (at most twice an interval) when the coordinator has been quiet for one: it
            // answers a heartbeat at once, however busy, so silence then means it is gone.
            if now - endpoint.lastSend >= interval || (now - lastHeard >= interval && now - lastAsked >= interval / 2) {
                endpoint.send(ZMQMessage(WireCodec.encode(.heartbeat)))
                lastAsked = now
            }
            if now - lastClock >= interval {
                if state.withLockedValue({ $0.timings }) { sendClock(on: endpoint) }
                lastClock = now
            }
        }
        return .stopped
    }

    /// This host's monotonic clock now, from which the coordinator measures its offset.
    func sendClock(on endpoint: ZMQEndpoint) {
        endpoint.send(ZMQMessage(WireCodec.encode(.clock(MonotonicClock.micros()))))
    }
}

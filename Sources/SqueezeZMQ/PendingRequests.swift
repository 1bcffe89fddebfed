import NIOConcurrencyHelpers

/// The table of requests waiting for a reply. Each entry is removed under the lock by exactly
/// one of reply, timeout, cancellation or shutdown, and only the remover resumes it, so every
/// continuation resumes exactly once.
final class PendingRequests: Sendable {
    private struct Entry {
        var continuation: CheckedContinuation<ZMQMessage, any Error>
        var deadline: ContinuousClock.Instant
        var timeout: Duration
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    /// Adds a request; if the table is already closed the continuation fails at once.
    func register(_ id: UInt64, timeout: Duration, continuation: CheckedContinuation<ZMQMessage, any Error>) {
        let accepted = state.withLockedValue { state in
            guard !state.closed else { return false }
            state.entries[id] = Entry(continuation: continuation, deadline: .now + timeout, timeout: timeout)
            return true
        }
        if !accepted { continuation.resume(throwing: ZMQRequestError.shutdown) }
    }

    /// Completes request `id` with `reply`; false when no such request is pending.
    func resolve(_ id: UInt64, with reply: ZMQMessage) -> Bool {
        guard let entry = state.withLockedValue({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(returning: reply)
        return true
    }

    /// Fails request `id` if it is still pending; returns whether it was.
    @discardableResult
    func fail(_ id: UInt64, with error: any Error) -> Bool {
        guard let entry = state.withLockedValue({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.continuation.resume(throwing: error)
        return true
    }

    /// Fails every request whose deadline has passed.
    func expire(now: ContinuousClock.Instant = .now) {
        let expired = state.withLockedValue { state in
            let due = state.entries.filter { $0.value.deadline <= now }
            for id in due.keys { state.entries.removeValue(forKey: id) }
            return Array(due.values)
        }
        for entry in expired { entry.continuation.resume(throwing: ZMQRequestError.timedOut(entry.timeout)) }
    }

    /// The earliest deadline, which bounds how long the I/O thread may sleep in `zmq_poll`.
    func nextDeadline() -> ContinuousClock.Instant? {
        state.withLockedValue { $0.entries.values.map(\.deadline).min() }
    }

    /// Fails everything pending with `.shutdown` and refuses new requests.
    func close() {
        let pending = state.withLockedValue { state in
            state.closed = true
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in pending { entry.continuation.resume(throwing: ZMQRequestError.shutdown) }
    }
}

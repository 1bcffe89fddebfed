import DequeModule
import NIOConcurrencyHelpers

/// Incoming events between an endpoint's I/O thread and the task reading them, bounded in
/// messages and bytes. When it is full the I/O thread stops receiving, so what peers send
/// waits in libzmq, within its receive high-water mark, and then in the peers' send queues:
/// a slow reader slows its senders instead of growing this process's memory. Taking an event
/// from a full inbox wakes the I/O thread again.
final class ZMQInbox: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<ZMQEndpointEvent?, Never>
    }

    private struct State {
        var events = Deque<ZMQEndpointEvent>()
        var bytes = 0
        var finished = false
        /// A `.tick` waits in `events`.
        var tickQueued = false
        var waiters = Deque<Waiter>()
        var nextWaiter: UInt64 = 0
    }

    /// Most events held at once.
    let maxEvents: Int
    /// Most payload bytes held at once (one event over it is still taken whole).
    let maxBytes: Int
    private let state = NIOLockedValueBox(State())
    /// Called (on the reader's thread) when an event left a full inbox.
    private let onRoom: @Sendable () -> Void

    init(maxEvents: Int, maxBytes: Int, onRoom: @escaping @Sendable () -> Void) {
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1, maxBytes)
        self.onRoom = onRoom
    }

    private func isFull(_ state: State) -> Bool {
        state.events.count >= maxEvents || state.bytes >= maxBytes
    }

    /// I/O thread: whether it may receive more now.
    var hasRoom: Bool { state.withLockedValue { !isFull($0) } }

    /// Events held now (for tests and diagnostics).
    var count: Int { state.withLockedValue { $0.events.count } }

    /// I/O thread: hands over an event, to a waiting reader or into the queue. Always taken
    /// (send failures must not be lost); the thread checks `hasRoom` before it receives.
    func append(_ event: ZMQEndpointEvent) {
        let waiter: Waiter? = state.withLockedValue { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiters.popFirst() { return waiter }
            state.events.append(event)
            state.bytes += event.byteCount
            return nil
        }
        waiter?.continuation.resume(returning: event)
    }

    /// I/O thread: hands over a `.tick`, unless one still waits (ticks do not pile up behind
    /// a busy reader). Like `append`, it does not count against the bounds.
    func appendTick() {
        let waiter: Waiter? = state.withLockedValue { state in
            guard !state.finished, !state.tickQueued else { return nil }
            if let waiter = state.waiters.popFirst() { return waiter }
            state.events.append(.tick)
            state.tickQueued = true
            return nil
        }
        waiter?.continuation.resume(returning: .tick)
    }

    /// No more events will come; readers get what is queued, then nil.
    func finish() {
        let waiters = state.withLockedValue { state in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }

    private enum Taken {
        case event(ZMQEndpointEvent, wasFull: Bool)
        case finished
        case empty
    }

    private func take(_ state: inout State) -> Taken {
        let wasFull = isFull(state)
        if let event = state.events.popFirst() {
            state.bytes -= event.byteCount
            if case .tick = event { state.tickQueued = false }
            return .event(event, wasFull: wasFull)
        }
        return state.finished ? .finished : .empty
    }

    /// The next event; nil once finished and drained, or when the reading task is cancelled.
    /// A waiting reader's continuation is resumed exactly once: by an event, by `finish`, or
    /// by the cancellation handler.
    func next() async -> ZMQEndpointEvent? {
        switch state.withLockedValue({ take(&$0) }) {
        case .event(let event, let wasFull):
            if wasFull { onRoom() }
            return event
        case .finished:
            return nil
        case .empty:
            break
        }
        let id = state.withLockedValue { state in
            defer { state.nextWaiter &+= 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ZMQEndpointEvent?, Never>) in
                let taken: Taken? = state.withLockedValue { state in
                    let taken = take(&state)
                    if case .empty = taken, !Task.isCancelled {
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                    return taken
                }
                switch taken {
                case nil:
                    break  // parked: `append`, `finish` or the cancellation handler resumes it
                case .event(let event, let wasFull)?:
                    if wasFull { onRoom() }
                    continuation.resume(returning: event)
                case .finished?, .empty?:
                    continuation.resume(returning: nil)
                }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}

extension ZMQEndpointEvent {
    /// Payload bytes, for the inbox's bound.
    var byteCount: Int {
        switch self {
        case .message(let message), .sendFailed(let message, _): message.byteCount
        case .tick, .dropped: 0
        }
    }
}

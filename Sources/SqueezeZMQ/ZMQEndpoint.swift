import CSqueezeSystem
import CZeroMQ
import DequeModule
import Foundation
import NIOConcurrencyHelpers

/// A ZeroMQ socket owned by one dedicated I/O thread and bridged into async code.
///
/// Only the I/O thread touches the socket. Async code enqueues outgoing messages with
/// `send` (never blocks), reads `events`, and awaits replies with `request`, whose checked
/// continuation resumes exactly once: on the reply, the timeout, cancellation or shutdown.
public final class ZMQEndpoint: Sendable {
    private struct State {
        var outbox = Deque<ZMQMessage>()
        var stopping = false
        var lastSend: ContinuousClock.Instant = .now
    }

    /// The configuration's name.
    public let name: String
    /// Incoming messages and send failures, in arrival order. Finishes when the endpoint stops.
    /// Bounded (`ZMQEndpointConfiguration.inboxMessages`, `inboxBytes`): while it is full the
    /// I/O thread receives nothing more, so peers are held back by libzmq's high-water marks.
    public var events: ZMQEvents { ZMQEvents(inbox: inbox) }
    private let inbox: ZMQInbox
    private let state = NIOLockedValueBox(State())
    private let requests = PendingRequests()
    private let wakeup: WakeupSignal
    private let exit = ThreadExit()
    private let nextCorrelation = NIOLockedValueBox<UInt64>(1)
    private let resolved = NIOLockedValueBox<[String]>([])

    private init(name: String, inboxMessages: Int, inboxBytes: Int) throws {
        self.name = name
        let wakeup = try WakeupSignal()
        self.wakeup = wakeup
        inbox = ZMQInbox(maxEvents: inboxMessages, maxBytes: inboxBytes) { wakeup.signal() }
    }

    /// Events waiting in the inbox (for tests and diagnostics).
    public var bufferedEvents: Int { inbox.count }

    /// The bound addresses with the ports libzmq chose (for `tcp://…:*` binds).
    public var boundEndpoints: [String] { resolved.withLockedValue { $0 } }

    /// Starts the I/O thread, which creates the socket, applies the options, binds and
    /// connects; returns once that has succeeded, or throws its error.
    public static func start(context: ZMQContext, configuration: ZMQEndpointConfiguration) async throws -> ZMQEndpoint {
        let endpoint = try ZMQEndpoint(
            name: configuration.name, inboxMessages: configuration.inboxMessages, inboxBytes: configuration.inboxBytes)
        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                endpoint.threadMain(context: context, configuration: configuration, ready: ready)
            }
            thread.name = "zmq-\(configuration.name)"
            thread.start()
        }
        return endpoint
    }

    /// Queues `message` for the I/O thread. Returns false when the endpoint has stopped.
    @discardableResult
    public func send(_ message: ZMQMessage) -> Bool {
        // Only the first message into an empty outbox wakes the thread: it takes the whole
        // outbox at once, so the others ride on that wake (one eventfd write per burst).
        let (queued, wake) = state.withLockedValue { state in
            guard !state.stopping else { return (false, false) }
            state.outbox.append(message)
            state.lastSend = .now
            return (true, state.outbox.count == 1)
        }
        if wake { wakeup.signal() }
        return queued
    }

    /// When `send` last queued a message (the start, before any): a peer that heard from
    /// this endpoint since needs no heartbeat to know it is alive.
    public var lastSend: ContinuousClock.Instant { state.withLockedValue { $0.lastSend } }

    /// A fresh correlation id, unique within this endpoint.
    public func makeCorrelationID() -> UInt64 {
        nextCorrelation.withLockedValue { next in
            defer { next &+= 1 }
            return next
        }
    }

    /// Sends the message `build` makes for a fresh correlation id and waits for the incoming
    /// message the configuration's `correlation` maps to that id.
    public func request(timeout: Duration, _ build: (UInt64) -> ZMQMessage) async throws -> ZMQMessage {
        let id = makeCorrelationID()
        let message = build(id)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                requests.register(id, timeout: timeout, continuation: continuation)
                wakeup.signal()  // the I/O thread must re-arm its poll timeout for the new deadline
                if Task.isCancelled {
                    requests.fail(id, with: CancellationError())
                } else if !send(message) {
                    requests.fail(id, with: ZMQRequestError.shutdown)
                }
            }
        } onCancel: {
            requests.fail(id, with: CancellationError())
        }
    }

    /// Stops the I/O thread, closes the socket, fails pending requests with `.shutdown` and
    /// finishes `events`. Messages queued before the call are handed to libzmq first; with
    /// linger 0 (the default) whatever it has not sent yet is dropped at close. Idempotent.
    public func shutdown() async {
        state.withLockedValue { $0.stopping = true }
        wakeup.signal()
        await exit.wait()
    }

    // MARK: - The I/O thread

    private func threadMain(
        context: ZMQContext,
        configuration: ZMQEndpointConfiguration,
        ready: CheckedContinuation<Void, any Error>
    ) {
        let socket: ZMQSocket
        var monitor: ZMQHandshakeMonitor?
        do {
            socket = try ZMQSocket(context: context, type: configuration.type)
            for option in configuration.options { try socket.set(option) }
            if let report = configuration.handshakeFailures {
                monitor = try ZMQHandshakeMonitor(watching: socket, context: context, report: report)
            }
            var bound: [String] = []
            for address in configuration.bind {
                try socket.bind(address)
                bound.append(try socket.lastEndpoint())
            }
            for address in configuration.connect { try socket.connect(address) }
            resolved.withLockedValue { $0 = bound }
        } catch {
            monitor?.close()
            finish()
            ready.resume(throwing: error)
            return
        }
        ready.resume()
        pollLoop(socket: socket, monitor: monitor, configuration: configuration)
        socket.close()
        monitor?.close()
        finish()
    }

    private func pollLoop(socket: ZMQSocket, monitor: ZMQHandshakeMonitor?, configuration: ZMQEndpointConfiguration) {
        guard let raw = try? socket.raw("zmq_poll") else { return }
        var items = [
            zmq_pollitem_t(socket: raw, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
            zmq_pollitem_t(socket: nil, fd: wakeup.descriptor, events: Int16(ZMQ_POLLIN), revents: 0),
        ]
        // The monitor, when there is one, is polled on this thread too: one owner for both.
        if let handle = try? monitor?.pollHandle() {
            items.append(zmq_pollitem_t(socket: handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
        }
        var clock = configuration.tickInterval.map { EndpointClock(interval: $0, slack: $0 / 2) }
        var droppedSinceTrim = 0
        while true {
            // A full inbox: leave incoming messages in libzmq until the reader makes room.
            items[0].events = inbox.hasRoom ? Int16(ZMQ_POLLIN) : 0
            let rc = squeeze_zmq_poll(&items, Int32(items.count), pollTimeout(nextTick: clock?.deadline))
            if rc < 0 {
                let error = squeeze_zmq_errno()
                if error == EINTR { continue }
                return  // ETERM: the context is going away
            }
            if items[1].revents != 0 { wakeup.drain() }
            if items.count > 2, items[2].revents != 0 { monitor?.drain() }
            let (batch, stopping) = state.withLockedValue { state in
                defer { state.outbox.removeAll(keepingCapacity: true) }
                return (state.outbox, state.stopping)
            }
            // Messages queued before shutdown still go to libzmq; linger decides whether
            // they leave before the socket closes.
            for message in batch { deliver(message, on: socket) }
            if stopping { return }
            receiveAll(from: socket, configuration: configuration, droppedSinceTrim: &droppedSinceTrim)
            requests.expire()
            if clock?.isDue(at: .now) == true { inbox.appendTick() }
        }
    }

    /// Milliseconds until the earliest of a pending request's deadline and the next tick; -1
    /// (no timeout) when there is neither.
    private func pollTimeout(nextTick: ContinuousClock.Instant?) -> Int {
        let deadline: ContinuousClock.Instant
        switch (requests.nextDeadline(), nextTick) {
        case (nil, nil): return -1
        case (let request?, nil): deadline = request
        case (nil, let tick?): deadline = tick
        case (let request?, let tick?): deadline = min(request, tick)
        }
        let remaining = deadline - .now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000) + 1
    }

    private func deliver(_ message: ZMQMessage, on socket: ZMQSocket) {
        do {
            if try !socket.send(message) {
                inbox.append(.sendFailed(message, ZMQError(operation: "zmq_send(\(name))", errno: EAGAIN)))
            }
        } catch let error as ZMQError {
            inbox.append(.sendFailed(message, error))
        } catch {
            inbox.append(.sendFailed(message, ZMQError(operation: "zmq_send(\(name))", errno: EIO)))
        }
    }

    private func receiveAll(from socket: ZMQSocket, configuration: ZMQEndpointConfiguration, droppedSinceTrim: inout Int) {
        let limit = configuration.receiveLimit
        // Bounded so a flood of input cannot starve the outbox, and by the inbox's room.
        for _ in 0..<256 {
            guard inbox.hasRoom, let incoming = try? socket.receive(within: limit) else { return }
            switch incoming {
            case .message(let message):
                if let answer = configuration.reflex?(message) { deliver(answer, on: socket) }
                if let id = configuration.correlation?(message), requests.resolve(id, with: message) { continue }
                inbox.append(.message(message))
            case .dropped(let dropped):
                if let limit {
                    droppedSinceTrim = dropped.bytes > Int.max - droppedSinceTrim ? Int.max : droppedSinceTrim + dropped.bytes
                    // The frames are closed, but glibc keeps the heap they took (libzmq's
                    // buffers for the whole message); given back here, a dropped message costs
                    // nothing once it is gone. Before the event, so whoever counts it sees it gone.
                    if droppedSinceTrim >= limit.trimAfterBytes {
                        squeeze_trim_malloc()
                        droppedSinceTrim = 0
                    }
                }
                // A reply that was dropped fails its request rather than leave it waiting.
                if let id = configuration.correlation?(ZMQMessage(dropped.leading)),
                   requests.fail(id, with: ZMQRequestError.replyDropped(frames: dropped.frames, bytes: dropped.bytes)) {
                    continue
                }
                inbox.append(.dropped(dropped))
            }
        }
    }

    private func finish() {
        requests.close()
        inbox.finish()
        state.withLockedValue { $0.stopping = true }
        exit.markExited()
    }
}

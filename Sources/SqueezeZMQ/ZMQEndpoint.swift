import CSqueezeSystem
import CZeroMQ
import DequeModule
import Foundation
import NIOConcurrencyHelpers

/// A ZeroMQ socket owned by one I/O thread (a `ZMQLoop`) and bridged into async code.
///
/// Only the loop's thread touches the socket. Async code enqueues outgoing messages with
/// `send` (never blocks), reads `events`, and awaits replies with `request`, whose checked
/// continuation resumes exactly once: on the reply, the timeout, cancellation or shutdown.
/// An endpoint started on a loop that is also an actor's executor hands its events to a
/// handler on that thread instead, and a `send` made there goes to libzmq at once.
public final class ZMQEndpoint: Sendable {
    private struct State {
        var outbox = Deque<ZMQMessage>()
        var stopping = false
        var lastSend: ContinuousClock.Instant = .now
    }

    /// What the loop's thread alone touches: the socket, its poll items, the clock, and (with a
    /// handler) the events not yet handed to it.
    private struct Session {
        var socket: ZMQSocket
        var monitor: ZMQHandshakeMonitor?
        var items: [zmq_pollitem_t]
        var clock: EndpointClock?
        var droppedSinceTrim = 0
        var pending = Deque<ZMQEndpointEvent>()
    }

    /// Before the socket is open: what opens it, and whom to tell.
    private struct Opening: Sendable {
        var context: ZMQContext
        var ready: CheckedContinuation<Void, any Error>
    }

    /// The configuration's name.
    public let name: String
    /// Incoming messages and send failures, in arrival order. Finishes when the endpoint stops.
    /// Bounded (`ZMQEndpointConfiguration.inboxMessages`, `inboxBytes`): while it is full the
    /// I/O thread receives nothing more, so peers are held back by libzmq's high-water marks.
    /// Empty for an endpoint with a handler.
    public var events: ZMQEvents { ZMQEvents(inbox: inbox) }
    private let inbox: ZMQInbox
    private let state = NIOLockedValueBox(State())
    private let requests = PendingRequests()
    private let loop: ZMQLoop
    private let configuration: ZMQEndpointConfiguration
    private let handler: (@Sendable (ZMQEndpointEvent) -> Void)?
    private let opening = NIOLockedValueBox<Opening?>(nil)
    private let session: LoopConfined<Session?>
    private let exit = ThreadExit()
    private let nextCorrelation = NIOLockedValueBox<UInt64>(1)
    private let resolved = NIOLockedValueBox<[String]>([])

    private init(configuration: ZMQEndpointConfiguration, loop: ZMQLoop, handler: (@Sendable (ZMQEndpointEvent) -> Void)?) {
        name = configuration.name
        self.configuration = configuration
        self.loop = loop
        self.handler = handler
        session = LoopConfined(nil, on: loop)
        let wakeup = loop.wakeup
        inbox = ZMQInbox(maxEvents: configuration.inboxMessages, maxBytes: configuration.inboxBytes) { wakeup.signal() }
    }

    /// Events waiting in the inbox (for tests and diagnostics).
    public var bufferedEvents: Int { inbox.count }

    /// The bound addresses with the ports libzmq chose (for `tcp://…:*` binds).
    public var boundEndpoints: [String] { resolved.withLockedValue { $0 } }

    /// Starts an I/O thread of the endpoint's own, which creates the socket, applies the
    /// options, binds and connects; returns once that has succeeded, or throws its error.
    public static func start(context: ZMQContext, configuration: ZMQEndpointConfiguration) async throws -> ZMQEndpoint {
        let loop = try ZMQLoop(name: "zmq-\(configuration.name)", endsWithEndpoint: true)
        return try await start(context: context, configuration: configuration, loop: loop, handler: nil)
    }

    /// Starts the endpoint on `loop`, whose thread creates the socket and from then on polls it
    /// between the loop's jobs; `handler` gets each event there, in line (`events` stays empty),
    /// never while it or a job of the loop runs. One endpoint per loop.
    public static func start(
        context: ZMQContext, configuration: ZMQEndpointConfiguration, on loop: ZMQLoop,
        handler: @escaping @Sendable (ZMQEndpointEvent) -> Void
    ) async throws -> ZMQEndpoint {
        try await start(context: context, configuration: configuration, loop: loop, handler: handler)
    }

    private static func start(
        context: ZMQContext, configuration: ZMQEndpointConfiguration, loop: ZMQLoop,
        handler: (@Sendable (ZMQEndpointEvent) -> Void)?
    ) async throws -> ZMQEndpoint {
        let endpoint = ZMQEndpoint(configuration: configuration, loop: loop, handler: handler)
        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
            endpoint.opening.withLockedValue { $0 = Opening(context: context, ready: ready) }
            loop.attach(endpoint)
        }
        return endpoint
    }

    /// Queues `message` for the I/O thread. Returns false when the endpoint has stopped. On
    /// the loop's own thread (a handler, an actor's turn) the message goes to libzmq at once,
    /// after what other threads queued before it.
    @discardableResult
    public func send(_ message: ZMQMessage) -> Bool {
        if loop.isCurrent, let sent = sendNow(message) { return sent }
        // Only the first message into an empty outbox wakes the thread: it takes the whole
        // outbox at once, so the others ride on that wake (one eventfd write per burst).
        let (queued, wake) = state.withLockedValue { state in
            guard !state.stopping else { return (false, false) }
            state.outbox.append(message)
            state.lastSend = .now
            return (true, state.outbox.count == 1)
        }
        if wake { loop.wakeup.signal() }
        return queued
    }

    /// On the loop's thread: delivers the outbox and `message`; nil while no socket is open.
    private func sendNow(_ message: ZMQMessage) -> Bool? {
        session.withValue { session -> Bool? in
            guard var open = session else { return nil }
            session = nil  // not copied on write while it is changed below
            defer { session = open }
            let (queued, stopping) = state.withLockedValue { state in
                defer { state.outbox.removeAll(keepingCapacity: true) }
                if !state.stopping { state.lastSend = .now }
                return (state.outbox, state.stopping)
            }
            for earlier in queued { deliver(earlier, in: &open) }
            guard !stopping else { return false }
            deliver(message, in: &open)
            return true
        }
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
                loop.wakeup.signal()  // the I/O thread must re-arm its poll timeout for the new deadline
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
        loop.wakeup.signal()
        await exit.wait()
    }

    // MARK: - On the loop's thread

    /// Creates the socket, applies the options, binds and connects, and tells the starter;
    /// false (and the endpoint finished) when that failed.
    func open() -> Bool {
        guard let opening = opening.withLockedValue({ value in defer { value = nil }; return value }) else { return false }
        var monitor: ZMQHandshakeMonitor?
        do {
            let socket = try ZMQSocket(context: opening.context, type: configuration.type)
            for option in configuration.options { try socket.set(option) }
            if let report = configuration.handshakeFailures {
                monitor = try ZMQHandshakeMonitor(watching: socket, context: opening.context, report: report)
            }
            var bound: [String] = []
            for address in configuration.bind {
                try socket.bind(address)
                bound.append(try socket.lastEndpoint())
            }
            for address in configuration.connect { try socket.connect(address) }
            resolved.withLockedValue { $0 = bound }
            var items = [
                zmq_pollitem_t(socket: try socket.raw("zmq_poll"), fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: nil, fd: loop.wakeup.descriptor, events: Int16(ZMQ_POLLIN), revents: 0),
            ]
            // The monitor, when there is one, is polled on this thread too: one owner for both.
            if let handle = try monitor?.pollHandle() {
                items.append(zmq_pollitem_t(socket: handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0))
            }
            let clock = configuration.tickInterval.map { EndpointClock(interval: $0, slack: $0 / 2) }
            session.withValue { $0 = Session(socket: socket, monitor: monitor, items: items, clock: clock) }
        } catch {
            monitor?.close()
            finish()
            opening.ready.resume(throwing: error)
            return false
        }
        opening.ready.resume()
        return true
    }

    /// One poll, blocking only when `mayBlock` (no job waits on the loop), and what it found:
    /// the outbox delivered, messages received, requests expired, a tick. False once stopping.
    /// With a handler each message is handed over as it is received, so at most one is held.
    func step(mayBlock: Bool) -> Bool {
        guard session.withValue({ $0 != nil }) else { return false }
        guard withSession({ poll(&$0, mayBlock: mayBlock) }) else { return false }
        handlePending()
        // Bounded so a flood of input cannot starve the outbox and the loop's jobs.
        for _ in 0..<256 {
            guard withSession({ receiveOne(into: &$0) }) else { break }
            handlePending()
        }
        withSession { session in
            requests.expire()
            if session.clock?.isDue(at: .now) == true {
                if handler == nil { inbox.appendTick() } else { session.pending.append(.tick) }
            }
        }
        handlePending()
        return true
    }

    /// Runs `body` on the open session (taken out meanwhile, so its buffers are not copied).
    private func withSession<Result>(_ body: (inout Session) -> Result) -> Result {
        session.withValue { session in
            guard var open = session else { preconditionFailure("\(name): no open socket") }
            session = nil
            defer { session = open }
            return body(&open)
        }
    }

    /// Hands the events received or failed meanwhile to the handler, here at the top of the
    /// loop: never inside a handler's call, whose sends may fail and add to them.
    func handlePending() {
        guard let handler else { return }
        while let event = session.withValue({ $0?.pending.popFirst() }) { handler(event) }
    }

    /// Closes the socket and finishes the endpoint: pending requests fail, `events` ends.
    func close() {
        session.withValue { session in
            session?.socket.close()
            session?.monitor?.close()
            session = nil
        }
        finish()
    }

    /// Polls and delivers the outbox; false when the endpoint stops or the context goes away.
    private func poll(_ session: inout Session, mayBlock: Bool) -> Bool {
        // A full inbox: leave incoming messages in libzmq until the reader makes room.
        session.items[0].events = inbox.hasRoom ? Int16(ZMQ_POLLIN) : 0
        let timeout = mayBlock ? pollTimeout(nextTick: session.clock?.deadline) : 0
        let rc = squeeze_zmq_poll(&session.items, Int32(session.items.count), timeout)
        if rc < 0 {
            // EINTR: poll again; otherwise (ETERM) the context is going away.
            return squeeze_zmq_errno() == EINTR
        }
        if session.items[1].revents != 0 { loop.wakeup.drain() }
        if session.items.count > 2, session.items[2].revents != 0 { session.monitor?.drain() }
        let (batch, stopping) = state.withLockedValue { state in
            defer { state.outbox.removeAll(keepingCapacity: true) }
            return (state.outbox, state.stopping)
        }
        // Messages queued before shutdown still go to libzmq; linger decides whether
        // they leave before the socket closes.
        for message in batch { deliver(message, in: &session) }
        return !stopping
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

    /// An event for the owner: into the inbox, or (with a handler) kept for `handlePending`.
    private func emit(_ event: ZMQEndpointEvent, in session: inout Session) {
        if handler == nil { inbox.append(event) } else { session.pending.append(event) }
    }

    private func deliver(_ message: ZMQMessage, in session: inout Session) {
        do {
            if try !session.socket.send(message) {
                emit(.sendFailed(message, ZMQError(operation: "zmq_send(\(name))", errno: EAGAIN)), in: &session)
            }
        } catch let error as ZMQError {
            emit(.sendFailed(message, error), in: &session)
        } catch {
            emit(.sendFailed(message, ZMQError(operation: "zmq_send(\(name))", errno: EIO)), in: &session)
        }
    }

    /// Receives one message, if one waits and the inbox has room; false when none was taken.
    private func receiveOne(into session: inout Session) -> Bool {
        guard inbox.hasRoom, let incoming = try? session.socket.receive(within: configuration.receiveLimit) else { return false }
        switch incoming {
        case .message(let message):
            if let answer = configuration.reflex?(message) { deliver(answer, in: &session) }
            if let id = configuration.correlation?(message), requests.resolve(id, with: message) { return true }
            emit(.message(message), in: &session)
        case .dropped(let dropped):
            if let limit = configuration.receiveLimit {
                let before = session.droppedSinceTrim
                session.droppedSinceTrim = dropped.bytes > Int.max - before ? Int.max : before + dropped.bytes
                // The frames are closed, but glibc keeps the heap they took (libzmq's
                // buffers for the whole message); given back here, a dropped message costs
                // nothing once it is gone. Before the event, so whoever counts it sees it gone.
                if session.droppedSinceTrim >= limit.trimAfterBytes {
                    squeeze_trim_malloc()
                    session.droppedSinceTrim = 0
                }
            }
            // A reply that was dropped fails its request rather than leave it waiting.
            if let id = configuration.correlation?(ZMQMessage(dropped.leading)),
               requests.fail(id, with: ZMQRequestError.replyDropped(frames: dropped.frames, bytes: dropped.bytes)) {
                return true
            }
            emit(.dropped(dropped), in: &session)
        }
        return true
    }

    private func finish() {
        requests.close()
        inbox.finish()
        state.withLockedValue { $0.stopping = true }
        exit.markExited()
    }
}

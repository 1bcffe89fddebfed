import DequeModule
import Foundation
import Glibc
import NIOConcurrencyHelpers

/// A thread the project owns that polls one endpoint's socket and is also a serial executor:
/// an actor whose `unownedExecutor` is this loop runs its turns here, between polls, and handles
/// the endpoint's events in line (`ZMQEndpoint.start(context:configuration:on:handler:)`). A
/// message received is then handled, and its answers handed to libzmq, on the thread that
/// received it: no other thread is woken for it. Jobs enqueued from other threads wake the
/// loop out of its poll through an eventfd, once per sleep.
public final class ZMQLoop: SerialExecutor {
    private struct State {
        var jobs = Deque<UnownedJob>()
        /// An endpoint waiting for the thread to take it up.
        var attaching: ZMQEndpoint?
        /// The thread is in (or about to enter) a poll that may block; an enqueue must wake it.
        var sleeping = false
        var stopping = false
        var thread: pthread_t?
    }

    /// The thread's name.
    public let name: String
    /// The eventfd that wakes the thread; the hosted endpoint polls it with its socket.
    let wakeup: WakeupSignal
    private let state = NIOLockedValueBox(State())
    /// Stop once the hosted endpoint has closed (an endpoint's own loop).
    private let endsWithEndpoint: Bool

    /// Starts the loop's thread, named `name`.
    public convenience init(name: String) throws {
        try self.init(name: name, endsWithEndpoint: false)
    }

    init(name: String, endsWithEndpoint: Bool) throws {
        self.name = name
        self.endsWithEndpoint = endsWithEndpoint
        wakeup = try WakeupSignal()
        let thread = Thread { [self] in main() }
        thread.name = name
        thread.start()
    }

    /// Whether the caller runs on the loop's thread.
    public var isCurrent: Bool {
        let me = pthread_self()
        return state.withLockedValue { $0.thread.map { pthread_equal($0, me) != 0 } ?? false }
    }

    /// Lets the thread end once no job is left and no endpoint is hosted. Does not wait:
    /// it may be called on the loop itself (an actor's deinit).
    public func shutdown() {
        state.withLockedValue { $0.stopping = true }
        wakeup.signal()
    }

    // MARK: - SerialExecutor

    /// Queues `job` to run on the loop's thread, in order.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wake = state.withLockedValue { state in
            state.jobs.append(job)
            defer { state.sleeping = false }
            return state.sleeping
        }
        if wake { wakeup.signal() }
    }

    /// This loop, unowned, for an actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Traps unless the caller runs on the loop's thread: `assumeIsolated` from the endpoint's
    /// handler relies on it.
    public func checkIsolated() {
        precondition(isCurrent, "not on the \(name) loop's thread")
    }

    // MARK: - Hosting

    /// Hands `endpoint` to the thread, which opens its socket and polls it from then on.
    func attach(_ endpoint: ZMQEndpoint) {
        state.withLockedValue { state in
            precondition(state.attaching == nil, "one endpoint per loop")
            state.attaching = endpoint
        }
        wakeup.signal()
    }

    // MARK: - The thread

    private func main() {
        let me = pthread_self()
        state.withLockedValue { $0.thread = me }
        var hosted: ZMQEndpoint?
        var hostedAny = false
        let executor = asUnownedSerialExecutor()
        while true {
            let (jobs, attaching, stopping) = state.withLockedValue { state in
                defer {
                    state.jobs.removeAll(keepingCapacity: true)
                    state.attaching = nil
                }
                return (state.jobs, state.attaching, state.stopping)
            }
            if let attaching {
                hosted = attaching.open() ? attaching : nil
                hostedAny = true
            }
            for job in jobs { job.runSynchronously(on: executor) }
            hosted?.handlePending()
            // Sleep only with nothing queued: a job enqueued from here on sees `sleeping`.
            let idle = state.withLockedValue { state in
                state.sleeping = state.jobs.isEmpty && state.attaching == nil
                return state.sleeping
            }
            if hosted == nil, stopping || (endsWithEndpoint && hostedAny), idle { break }
            if let endpoint = hosted {
                if !endpoint.step(mayBlock: idle) {
                    endpoint.close()
                    hosted = nil
                }
            } else {
                var item = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&item, 1, idle ? -1 : 0) > 0 { wakeup.drain() }
            }
            state.withLockedValue { $0.sleeping = false }
        }
        state.withLockedValue { $0.thread = nil }
    }
}

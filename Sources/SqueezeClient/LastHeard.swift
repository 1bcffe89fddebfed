import NIOConcurrencyHelpers
import SqueezeProtocol

/// When the coordinator last gave a sign of life that counts; written by the I/O thread, read
/// by the liveness check. While a job is followed, only its events and heartbeats echoing its
/// id count: a coordinator that restarted (and so answers plain heartbeats) has lost the job.
final class LastHeard: Sendable {
    private struct State {
        var instant: ContinuousClock.Instant?
        var followed: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// The job whose liveness is judged from now on; 0 for none.
    var followedJob: UInt64 {
        get { state.withLockedValue { $0.followed } }
        set { state.withLockedValue { $0.followed = newValue } }
    }

    /// Records an incoming message whose header is `header`, if it counts as a sign of life.
    func mark(_ header: MessageHeader) {
        state.withLockedValue { state in
            let job = state.followed
            let counts = job == 0
                || header.type == .jobEvent
                || (header.type == .heartbeat && header.correlation == job)
            if counts { state.instant = .now }
        }
    }

    /// The last arrival that counted, or nil when none has.
    var value: ContinuousClock.Instant? {
        state.withLockedValue { $0.instant }
    }
}

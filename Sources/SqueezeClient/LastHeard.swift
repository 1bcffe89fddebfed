import SqueezeProtocol
import Synchronization

/// When the coordinator last gave a sign of life that counts; written by the I/O thread, read
/// by the liveness check. While a job is followed, only its events and heartbeats echoing its
/// id count: a coordinator that restarted (and so answers plain heartbeats) has lost the job.
final class LastHeard: Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)
    private let followed = Atomic<UInt64>(0)

    /// The job whose liveness is judged from now on; 0 for none.
    var followedJob: UInt64 {
        get { followed.load(ordering: .relaxed) }
        set { followed.store(newValue, ordering: .relaxed) }
    }

    /// Records an incoming message whose header is `header`, if it counts as a sign of life.
    func mark(_ header: MessageHeader) {
        let job = followedJob
        let counts = job == 0
            || header.type == .jobEvent
            || (header.type == .heartbeat && header.correlation == job)
        if counts { instant.withLock { $0 = .now } }
    }

    /// The last arrival that counted, or nil when none has.
    var value: ContinuousClock.Instant? {
        instant.withLock { $0 }
    }
}

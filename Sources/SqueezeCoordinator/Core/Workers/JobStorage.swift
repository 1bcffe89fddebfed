import SqueezeProtocol

/// How one worker gets at one job's files.
enum JobStorage: Sendable, Equatable {
    /// How long a probe may stay unanswered before the worker is taken as remote for the job.
    static let probeTimeout = Duration.seconds(3)

    /// A probe went out at this instant; the job's items wait for the answer (or remote after
    /// `probeTimeout`).
    case probing(ContinuousClock.Instant)
    /// It reads sources and writes pieces on shared storage, seeing what `SharedView` says of
    /// the scan's stamps.
    case shared(SharedView)
    /// Its items travel in messages.
    case remote
}

/// Where the coordinator actor is in its life. The outbox exists only while it runs, so no
/// effect can reach a task that is not there.
enum CoordinatorLifecycle: Sendable {
    /// Made, not running: effects that need the running tasks are dropped.
    case idle
    /// Running: effects go to the outbox.
    case running(CoordinatorOutbox)
    /// Stopping: the tasks' streams are finished; messages still go out until the endpoints close.
    case stopping(CoordinatorOutbox)
    /// `run` returned.
    case stopped

    /// Where effects go now, if anywhere.
    var outbox: CoordinatorOutbox? {
        switch self {
        case .running(let outbox), .stopping(let outbox): outbox
        case .idle, .stopped: nil
        }
    }
}

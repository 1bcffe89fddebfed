import SqueezeProtocol

/// Where a job stands on its way to its end, as one state machine.
///
/// A job runs until every file is published or failed (it then *completes*), or until it is
/// cancelled or fails as a whole (it then *cancels*: every writer partition discards its
/// temporaries first). Either way a writer then removes its workspace, and only then is the
/// job reported finished: whoever sees the end (a client, `compress` about to exit) must not
/// find a temporary left behind. A completing job waits for the workers' discards of stitched
/// pieces first, at most `discardGrace`, so the workers, not the coordinator, free that space.
///
/// Each transition is an event with the time where time matters, and returns what the
/// coordinator must do (`JobPhaseAction`); it reads no clock and touches nothing.
enum JobPhase: Equatable, Sendable {
    /// Planned or in progress: it takes answers and sends work.
    case running
    /// Every file is published or failed, since `since`; the workspace waits for the workers'
    /// discards to be answered.
    case completing(since: ContinuousClock.Instant)
    /// Ended as `state` (cancelled or failed); `writersLeft` writer partitions have still to
    /// discard its temporaries.
    case cancelling(JobState, writersLeft: Int)
    /// Ended as `state`; a writer is removing the workspace.
    case removingWorkspace(JobState)
    /// Reported finished as `state`. A workspace not removed is left to the coordinator's end.
    case ended(JobState, workspaceRemoved: Bool)

    /// How long a completed job waits for its discards before removing its workspace anyway.
    static let discardGrace = Duration.seconds(10)

    /// The state `status` and the summary report.
    var state: JobState {
        switch self {
        case .running: .running
        case .completing: .completed
        case .cancelling(let state, _), .removingWorkspace(let state), .ended(let state, _): state
        }
    }

    /// Whether the job still takes answers, plans and sends work.
    var isRunning: Bool { self == .running }

    /// Whether its clients still wait for its events: it runs, or it was cancelled and its
    /// `finished` waits for its writers.
    var isFollowed: Bool {
        switch self {
        case .running, .cancelling: true
        case .completing, .removingWorkspace, .ended: false
        }
    }

    /// Every file is published or failed at `now`: the job's items are dropped everywhere and
    /// its workspace is removed once nothing is `outstanding` (`discardsAnswered`).
    mutating func complete(at now: ContinuousClock.Instant, outstanding: Bool) -> [JobPhaseAction] {
        guard self == .running else { return [] }
        self = .completing(since: now)
        return [.dropInFlight] + discardsAnswered(outstanding: outstanding, at: now)
    }

    /// Cancelled, or failed as a whole (`state`): its items are dropped everywhere and each of
    /// `writers` partitions discards its temporaries; with no writers the workspace goes at once.
    mutating func cancel(as state: JobState, writers: Int) -> [JobPhaseAction] {
        guard self == .running else { return [] }
        guard writers > 0 else {
            self = .removingWorkspace(state)
            return [.dropInFlight, .removeWorkspace]
        }
        self = .cancelling(state, writersLeft: writers)
        return [.dropInFlight, .discardInWriters]
    }

    /// One writer partition has discarded the job's temporaries; after the last, the workspace goes.
    mutating func writerDiscarded() -> [JobPhaseAction] {
        guard case .cancelling(let state, let left) = self else { return [] }
        guard left <= 1 else {
            self = .cancelling(state, writersLeft: left - 1)
            return []
        }
        self = .removingWorkspace(state)
        return [.removeWorkspace]
    }

    /// A completing job's discards: once none is `outstanding`, or they have had `discardGrace`
    /// by `now`, the workspace goes (once).
    mutating func discardsAnswered(outstanding: Bool, at now: ContinuousClock.Instant) -> [JobPhaseAction] {
        guard case .completing(let since) = self, !outstanding || now - since > Self.discardGrace else { return [] }
        self = .removingWorkspace(.completed)
        return [.removeWorkspace]
    }

    /// The workspace is gone: the job is reported finished.
    mutating func workspaceRemoved() -> [JobPhaseAction] {
        guard case .removingWorkspace(let state) = self else { return [] }
        self = .ended(state, workspaceRemoved: true)
        return [.finish]
    }

    /// The coordinator stops: a running job fails now (its items dropped, its writers told to
    /// discard), and every job is reported finished at once, its workspace left to the end of
    /// `run` unless it is already gone.
    mutating func stop() -> [JobPhaseAction] {
        switch self {
        case .running:
            self = .ended(.failed, workspaceRemoved: false)
            return [.dropInFlight, .discardInWriters, .finish]
        case .completing, .cancelling, .removingWorkspace:
            self = .ended(state, workspaceRemoved: false)
            return [.finish]
        case .ended:
            return []
        }
    }
}

/// What the coordinator does when a job changes phase (`JobPhase`).
enum JobPhaseAction: Equatable, Sendable {
    /// End the job's dispatch and tell the workers holding its items to drop them.
    case dropInFlight
    /// Tell every writer partition to discard the job's temporaries; each answers.
    case discardInWriters
    /// Have a writer remove the job's workspace (after the commands before it); it answers.
    case removeWorkspace
    /// Report the job finished: its last events, the journal, the history.
    case finish
}

import SqueezeProtocol

/// What a client attaching to a job gets (`CoordinatorCore.attach`).
enum JobAttachment: Sendable {
    /// It follows the job already: its events reach it once, not on a second stream.
    case already(JobAccepted)
    /// It follows the job from now on; `first` says where the job stands.
    case following(JobAccepted, first: [JobEvent])
    /// The job ended: its `finished` alone.
    case ended(JobAccepted, JobSummary)
}

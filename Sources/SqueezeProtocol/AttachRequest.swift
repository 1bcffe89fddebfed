/// A client asks to follow a job that is already running (or has ended): `squeeze attach`,
/// or `squeeze submit` finding its coordinator again after a restart.
public struct AttachRequest: Codable, Sendable, Equatable {
    /// The job to follow.
    public var jobID: UInt64
    /// How often the client will send heartbeats, 100–60,000 ms (default: the coordinator's
    /// interval). Only used when `owner` is true.
    public var heartbeatMilliseconds: Int?
    /// True when the client takes the job over as its submitter did: the job is cancelled if
    /// this client vanishes (`submit` re-attaching). False or absent: the client only watches,
    /// and leaving does not cancel anything (`squeeze attach`).
    public var owner: Bool?

    /// Creates a request.
    public init(jobID: UInt64, heartbeatMilliseconds: Int? = nil, owner: Bool? = nil) {
        self.jobID = jobID
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.owner = owner
    }
}

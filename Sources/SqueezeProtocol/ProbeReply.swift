/// Worker → coordinator: the answer to a `StorageProbe`.
public struct ProbeReply: Codable, Sendable, Equatable {
    /// The job probed.
    public var jobID: UInt64
    /// Whether the worker sees the job's files and can write pieces in its workspace.
    public var shared: Bool
    /// Why not, when it cannot (logged by the coordinator).
    public var reason: String?

    /// Creates a reply.
    public init(jobID: UInt64, shared: Bool, reason: String? = nil) {
        self.jobID = jobID
        self.shared = shared
        self.reason = reason
    }
}

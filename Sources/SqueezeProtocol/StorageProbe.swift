/// Coordinator → worker: can you see this job's files? Sent once per job to a worker in
/// `auto` storage mode.
public struct StorageProbe: Codable, Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The job's workspace folder (path bytes): the worker must read `probe` there, find
    /// `token` in it, and be able to create a file beside it.
    public var workspace: [UInt8]
    /// The content of the probe file.
    public var token: String
    /// One source file of the job and what the coordinator's scan saw; the worker must see
    /// the same size, mtime and inode. Nil for a job without files.
    public var sample: ProbeSample?

    /// How many leading bytes of the sample both sides read and compare by CRC-32: a worker that
    /// sees another copy of the tree (same names, sizes and mtimes, other bytes) is not shared.
    public static let sampleBytes = 64 << 10

    /// Creates a probe.
    public init(jobID: UInt64, workspace: [UInt8], token: String, sample: ProbeSample?) {
        self.jobID = jobID
        self.workspace = workspace
        self.token = token
        self.sample = sample
    }
}

/// A throttled snapshot of a job's progress (at most a few per second).
public struct ProgressSnapshot: Codable, Sendable, Equatable {
    /// The job's id.
    public var jobID: UInt64
    /// Files finished (written or failed).
    public var filesDone: Int
    /// Files in the job.
    public var files: Int
    /// Uncompressed bytes compressed so far.
    public var bytesDone: UInt64
    /// Uncompressed bytes in the job.
    public var bytes: UInt64
    /// Compressed bytes produced so far.
    public var bytesOut: UInt64
    /// Seconds since the job started.
    public var seconds: Double
    /// Workers connected to the coordinator.
    public var workers: Int
    /// Files in progress, most advanced first, capped to a handful.
    public var active: [FileProgress]
    /// True while the scan is still finding files: the totals are those found so far.
    /// Absent (nil) once they are final.
    public var scanning: Bool?

    /// Creates a snapshot.
    public init(
        jobID: UInt64, filesDone: Int, files: Int, bytesDone: UInt64, bytes: UInt64,
        bytesOut: UInt64, seconds: Double, workers: Int, active: [FileProgress]
    ) {
        self.jobID = jobID
        self.filesDone = filesDone
        self.files = files
        self.bytesDone = bytesDone
        self.bytes = bytes
        self.bytesOut = bytesOut
        self.seconds = seconds
        self.workers = workers
        self.active = active
    }
}

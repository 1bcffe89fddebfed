import SqueezeProtocol

/// One job on the page: what `squeeze status` says of it, with its rates worked out.
public struct DashboardJob: Codable, Sendable, Equatable {
    /// The job's id.
    public var jobID: UInt64
    /// Its source.
    public var source: String
    /// Running or how it ended.
    public var state: JobState
    /// Files finished, and in the job.
    public var filesDone: Int, files: Int
    /// Files failed so far.
    public var filesFailed: Int?
    /// Uncompressed bytes done, and in the job.
    public var bytesDone: UInt64, bytes: UInt64
    /// Compressed bytes written.
    public var bytesOut: UInt64?
    /// Seconds it has run (or ran).
    public var seconds: Double?
    /// Who submitted it.
    public var submitter: String?
    /// When, in seconds since 1970.
    public var submittedAt: Double?
    /// Why it failed or was cancelled.
    public var message: String?
    /// True while the scan still finds files.
    public var scanning: Bool?
    /// Bytes done, in percent of the bytes known (0–100).
    public var percent: Double
    /// Uncompressed MB/s since it started.
    public var megabytesPerSecond: Double?
    /// Seconds left at that rate, for a running job whose scan is over.
    public var etaSeconds: Double?
    /// Compressed over uncompressed bytes so far.
    public var ratio: Double?
    /// Files in progress, most advanced first.
    public var active: [FileProgress]?

    /// The page's view of `status`.
    public init(_ status: JobStatus) {
        jobID = status.jobID
        source = status.source
        state = status.state
        filesDone = status.filesDone
        files = status.files
        filesFailed = status.filesFailed
        bytesDone = status.bytesDone
        bytes = status.bytes
        bytesOut = status.bytesOut
        seconds = status.seconds
        submitter = status.submitter
        submittedAt = status.submittedAt
        message = status.message
        scanning = status.scanning
        active = status.active
        let done = Double(status.bytesDone), total = Double(status.bytes)
        if status.state == .completed {
            percent = 100
        } else {
            percent = total > 0 ? min(100, done / total * 100) : 0
        }
        if let seconds = status.seconds, seconds > 0.05, done > 0 {
            let rate = done / seconds
            megabytesPerSecond = rate / 1e6
            if status.state == .running, status.scanning != true, total >= done { etaSeconds = (total - done) / rate }
        }
        if let out = status.bytesOut, done > 0, out > 0 { ratio = Double(out) / done }
    }
}

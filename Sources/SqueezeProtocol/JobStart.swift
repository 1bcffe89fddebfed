/// A job has been planned: what it will do.
public struct JobStart: Codable, Sendable, Equatable {
    /// The job's id.
    public var jobID: UInt64
    /// The source folder or file.
    public var source: String
    /// The output folder.
    public var destination: String
    /// Regular files to compress.
    public var files: Int
    /// Their total size.
    public var bytes: UInt64
    /// The engine and its level, e.g. `libdeflate -6`; nil from a coordinator that does not say.
    public var engine: String?
    /// True while the scan is still finding files: the totals are those found so far.
    /// Absent (nil) once they are final.
    public var scanning: Bool?
    /// For a `--tar` job, the entries the archive holds (files, directories, links…); `files`
    /// is then 1, the archive, and `bytes` the length of the tar stream. Nil otherwise.
    public var archiveEntries: Int?

    /// Creates a start event payload.
    public init(jobID: UInt64, source: String, destination: String, files: Int, bytes: UInt64, engine: String? = nil) {
        self.jobID = jobID
        self.source = source
        self.destination = destination
        self.files = files
        self.bytes = bytes
        self.engine = engine
    }
}

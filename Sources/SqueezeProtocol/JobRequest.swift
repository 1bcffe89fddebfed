/// A client's request to compress a folder or file, with paths as the coordinator sees them.
public struct JobRequest: Codable, Sendable, Equatable {
    /// The folder or file to compress.
    public var source: String
    /// The output folder; nil for `SOURCE.squeezed` beside the source.
    public var destination: String?
    /// Compression level 0–9, with gzip's meaning: never larger than `gzip -N`.
    public var level: Int
    /// Replace existing outputs.
    public var force: Bool
    /// Block size in bytes; nil for the coordinator's default.
    public var blockSize: Int?
    /// True when the client will not follow the job: no events are sent to it and its
    /// silence does not cancel the job. Nil means false.
    public var detached: Bool?
    /// How often the following client promises to send heartbeats; nil for the coordinator's
    /// own interval. The coordinator cancels the job after `liveness` silent intervals.
    public var heartbeatMilliseconds: Int?
    /// Forces an engine (`zlib`, `libdeflate`, `isal`); nil lets the level choose.
    public var engine: String?
    /// False to publish this job's outputs without checking the workers' answers (the
    /// coordinator's `--no-verify` turns the check off for every job); nil means true.
    public var verify: Bool?
    /// Who asks, for the job history (`user@host`, as the client says; not authenticated).
    /// At most 256 bytes; optional.
    public var submitter: String?
    /// True for one `.tar.gz` of the folder (`--tar`): `destination` then names the archive
    /// file (default `SRC.tar.gz` beside the folder). Nil means false.
    public var tar: Bool?
    /// True to receive the job's trace as `trace` events (`--trace`): every item's dispatch,
    /// its worker, slot and phases. Nil means false.
    public var trace: Bool?
    /// True to receive a `fileDone` event for each file published (the CLI asks for them with
    /// `--json`). Nil means false: a folder of a million files would otherwise cost the
    /// coordinator a million events that most clients never show.
    public var fileEvents: Bool?

    /// Creates a request.
    public init(
        source: String, destination: String?, level: Int, force: Bool, blockSize: Int? = nil,
        detached: Bool? = nil, heartbeatMilliseconds: Int? = nil, engine: String? = nil,
        verify: Bool? = nil, submitter: String? = nil, tar: Bool? = nil
    ) {
        self.tar = tar
        self.verify = verify
        self.submitter = submitter
        self.source = source
        self.destination = destination
        self.level = level
        self.force = force
        self.blockSize = blockSize
        self.detached = detached
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.engine = engine
    }
}

/// One worker as the coordinator sees it.
public struct WorkerStatus: Codable, Sendable, Equatable {
    /// The worker's id.
    public var workerID: String
    /// Its host name.
    public var host: String
    /// Announced slots.
    public var slots: Int
    /// Items it holds now.
    public var busy: Int
    /// Uncompressed MB/s over the last few seconds.
    public var megabytesPerSecond: Double
    /// Seconds since its last message.
    public var lastHeartbeatSeconds: Double
    /// Items it has completed.
    public var itemsDone: Int
    /// The engines it announced; nil when unknown (zlib only).
    public var engines: [String]?
    /// Its storage mode: `auto`, `shared` or `remote`.
    public var storage: String?
    /// True when the worker gets no more work because too many of its answers failed the
    /// result check; absent otherwise.
    public var quarantined: Bool?
    /// Its answers refused by the result check; nil from coordinators before the check.
    public var refusedResults: Int?
    /// For a worker connected over loopback, the pid of the process the kernel says is at the
    /// other end (which may differ from the `pid` it announced); nil for other workers, before
    /// the coordinator has looked, or when it could not tell.
    public var localProcess: Int32?

    /// Creates a worker status.
    public init(workerID: String, host: String, slots: Int, busy: Int, megabytesPerSecond: Double, lastHeartbeatSeconds: Double, itemsDone: Int, engines: [String]? = nil, storage: String? = nil,
                quarantined: Bool? = nil, refusedResults: Int? = nil) {
        self.quarantined = quarantined
        self.refusedResults = refusedResults
        self.workerID = workerID
        self.host = host
        self.slots = slots
        self.busy = busy
        self.megabytesPerSecond = megabytesPerSecond
        self.lastHeartbeatSeconds = lastHeartbeatSeconds
        self.itemsDone = itemsDone
        self.engines = engines
        self.storage = storage
    }
}

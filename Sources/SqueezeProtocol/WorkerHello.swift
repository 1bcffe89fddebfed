/// A worker's announcement: who it is and how many items it can hold at once.
public struct WorkerHello: Codable, Sendable, Equatable {
    /// Stable for the life of the worker process; also its ZeroMQ routing id.
    public var workerID: String
    /// The host name, for `status`.
    public var host: String
    /// Compression slots; the coordinator's credit to this worker.
    public var slots: Int
    /// The worker's process id, for `status`.
    public var pid: Int32
    /// The engines it can compress with (`zlib`, `libdeflate`, `isal`); nil means zlib only.
    /// Names it does not know are ignored by the coordinator.
    public var engines: [String]?

    /// The slots a coordinator accepts: a worker claiming more is refused, not trusted.
    public static let slotRange = 1...1024

    /// Creates an announcement.
    public init(workerID: String, host: String, slots: Int, pid: Int32, engines: [String]? = nil) {
        self.workerID = workerID
        self.host = host
        self.slots = slots
        self.pid = pid
        self.engines = engines
    }
}

/// The coordinator's queues at one moment of a traced job.
public struct TraceCounters: Codable, Sendable, Equatable {
    /// Microseconds since the job started.
    public var at: Int64
    /// The job's items planned and not yet handed out.
    public var queued: Int
    /// The job's items out with workers.
    public var inFlight: Int
    /// Uncompressed bytes of those items.
    public var bytesInFlight: Int
    /// Items answered whose blocks are not yet in their outputs.
    public var unwritten: Int

    /// Creates a sample.
    public init(at: Int64, queued: Int, inFlight: Int, bytesInFlight: Int, unwritten: Int) {
        self.at = at
        self.queued = queued
        self.inFlight = inFlight
        self.bytesInFlight = bytesInFlight
        self.unwritten = unwritten
    }
}

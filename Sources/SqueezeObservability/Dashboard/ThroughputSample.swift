/// The cluster's input throughput at one moment, for the page's chart.
public struct ThroughputSample: Codable, Sendable, Equatable {
    /// Seconds since 1970 (the coordinator's clock).
    public var t: Double
    /// Uncompressed megabytes per second over the last interval, all workers together.
    public var megabytesPerSecond: Double

    /// Creates a sample.
    public init(t: Double, megabytesPerSecond: Double) {
        self.t = t
        self.megabytesPerSecond = megabytesPerSecond
    }
}

/// The cluster as a whole, at the top of the page.
public struct DashboardCluster: Codable, Sendable, Equatable {
    /// Connected workers.
    public var workers: Int
    /// Their slots.
    public var slots: Int
    /// Items they hold now.
    public var busySlots: Int
    /// Items out with workers (the same, counted by the coordinator's scheduler).
    public var itemsInFlight: Int
    /// Uncompressed MB/s of all workers over the last few seconds.
    public var megabytesPerSecond: Double
    /// CPU seconds the coordinator has used.
    public var coordinatorCPUSeconds: Double?
    /// Whether answers are checked.
    public var resultsChecked: Bool
    /// Malformed messages dropped since start.
    public var malformedMessages: Int
    /// Late answers dropped since start.
    public var lateResults: Int
    /// Answers refused by the check since start.
    public var refusedResults: Int?
}

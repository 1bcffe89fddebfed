/// The coordinator's answer to `workerReady`: the worker is registered, with these heartbeat rules.
public struct Welcome: Codable, Sendable, Equatable {
    /// How often each side sends heartbeats.
    public var heartbeatMilliseconds: Int
    /// How many missed intervals make a peer dead.
    public var liveness: Int
    /// True when the coordinator wants `timing` and `clock` messages (for job traces); nil
    /// from coordinators before them, which would count them as malformed.
    public var timings: Bool?
    /// Of the items the worker said it holds (`workerReady.holding`), those it should finish
    /// and answer; it drops the rest (the coordinator sent them elsewhere, or their jobs
    /// ended). Nil when the worker said nothing: then it keeps nothing.
    public var keep: [HeldItems]?

    /// Why a worker must not adopt these rules, or nil: an interval or liveness out of range
    /// (checked before any arithmetic on them).
    public var defect: String? {
        let interval = ProtocolLimits.heartbeatMilliseconds, liveness = ProtocolLimits.liveness
        guard interval.contains(heartbeatMilliseconds) else {
            return "heartbeatMilliseconds \(heartbeatMilliseconds): must be \(interval.lowerBound)-\(interval.upperBound)"
        }
        guard liveness.contains(self.liveness) else {
            return "liveness \(self.liveness): must be \(liveness.lowerBound)-\(liveness.upperBound)"
        }
        return nil
    }

    /// Creates a welcome.
    public init(heartbeatMilliseconds: Int, liveness: Int) {
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
    }
}

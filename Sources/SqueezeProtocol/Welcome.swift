/// The coordinator's answer to `workerReady`: the worker is registered, with these heartbeat rules.
public struct Welcome: Codable, Sendable, Equatable {
    /// How often each side sends heartbeats.
    public var heartbeatMilliseconds: Int
    /// How many missed intervals make a peer dead.
    public var liveness: Int

    /// Creates a welcome.
    public init(heartbeatMilliseconds: Int, liveness: Int) {
        self.heartbeatMilliseconds = heartbeatMilliseconds
        self.liveness = liveness
    }
}

/// A worker as a job's trace names it: one process in the timeline.
public struct TraceWorker: Codable, Sendable, Equatable {
    /// Its number in this trace (1, 2, …), in order of first appearance.
    public var index: Int
    /// The worker's id.
    public var workerID: String
    /// Its host.
    public var host: String
    /// Its slots: one lane each.
    public var slots: Int
    /// How the worker's clock maps onto the coordinator's (add it to a worker time), in
    /// microseconds, measured from its `clock` messages; nil when it sent none (an older
    /// worker): its items are then placed by the coordinator's own send and receive times.
    public var clockOffsetMicros: Int64?

    /// Creates a trace worker.
    public init(index: Int, workerID: String, host: String, slots: Int, clockOffsetMicros: Int64?) {
        self.index = index
        self.workerID = workerID
        self.host = host
        self.slots = slots
        self.clockOffsetMicros = clockOffsetMicros
    }
}

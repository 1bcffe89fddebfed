/// One event of the Chrome trace-event format (the JSON `chrome://tracing` and Perfetto open):
/// `X` complete events, `C` counters, `i` instants and `M` metadata. Times in microseconds.
struct TraceEvent: Encodable, Sendable, Equatable {
    var name: String
    var cat: String?
    var ph: String
    var ts: Int64
    var dur: Int64?
    var pid: Int
    var tid: Int?
    /// Scope of an instant event (`t`, `p` or `g`).
    var s: String?
    var args: [String: TraceArgument]?

    /// A complete event: `name` on lane `tid` of process `pid`, from `start` to `end`.
    static func complete(_ name: String, category: String, pid: Int, tid: Int, from start: Int64, to end: Int64, args: [String: TraceArgument]? = nil) -> TraceEvent {
        TraceEvent(name: name, cat: category, ph: "X", ts: start, dur: max(0, end - start), pid: pid, tid: tid, args: args)
    }

    /// A metadata event naming a process or a lane, or setting their order.
    static func metadata(_ name: String, pid: Int, tid: Int? = nil, args: [String: TraceArgument]) -> TraceEvent {
        TraceEvent(name: name, ph: "M", ts: 0, pid: pid, tid: tid, args: args)
    }
}

/// Puts intervals on as few lanes as they need, each on the first lane free at its start, so
/// events on one lane never overlap (the trace format needs that of complete events on a lane).
struct LanePacker: Sendable {
    private var ends: [Int64] = []

    /// Lanes used so far.
    var count: Int { ends.count }

    /// The lane (0-based) for an interval from `start` to `end`; call in order of `start`.
    mutating func place(from start: Int64, to end: Int64) -> Int {
        if let free = ends.firstIndex(where: { $0 <= start }) {
            ends[free] = max(end, start)
            return free
        }
        ends.append(max(end, start))
        return ends.count - 1
    }
}

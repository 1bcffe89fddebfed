import Foundation

/// A `--trace` file read back as the trace-event JSON it claims to be.
struct TraceFile {
    /// Every event.
    let events: [[String: Any]]

    init(path: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        events = ((object as? [String: Any])?["traceEvents"] as? [[String: Any]]) ?? []
    }

    /// Complete events of items (not their phases), as (item, attempt, outcome, pid, tid).
    var items: [(item: Int, attempt: Int, outcome: String, pid: Int, tid: Int)] {
        events.compactMap { event in
            guard event["ph"] as? String == "X", (event["name"] as? String)?.hasPrefix("item ") == true,
                  let args = event["args"] as? [String: Any], let item = args["item"] as? Int, let attempt = args["attempt"] as? Int,
                  let outcome = args["outcome"] as? String, let pid = event["pid"] as? Int, let tid = event["tid"] as? Int else { return nil }
            return (item, attempt, outcome, pid, tid)
        }
    }

    /// The name a metadata event gives process `pid` (and lane `tid`).
    func name(pid: Int, tid: Int? = nil) -> String? {
        events.first { event in
            event["ph"] as? String == "M" && event["pid"] as? Int == pid && event["tid"] as? Int == tid
                && event["name"] as? String == (tid == nil ? "process_name" : "thread_name")
        }.flatMap { ($0["args"] as? [String: Any])?["name"] as? String }
    }

    /// Lanes whose complete events overlap without nesting (the format forbids it).
    var badlyNestedLanes: [String] {
        var lanes: [[Int]: [(start: Int, end: Int)]] = [:]
        for event in events where event["ph"] as? String == "X" {
            guard let pid = event["pid"] as? Int, let tid = event["tid"] as? Int, let ts = event["ts"] as? Int, let dur = event["dur"] as? Int else { continue }
            lanes[[pid, tid], default: []].append((ts, ts + dur))
        }
        var bad: [String] = []
        for (lane, spans) in lanes {
            var open: [Int] = []  // ends of the enclosing events
            for span in spans.sorted(by: { ($0.start, -$0.end) < ($1.start, -$1.end) }) {
                while let last = open.last, last <= span.start { open.removeLast() }
                if let last = open.last, span.end > last { bad.append("\(lane)") }
                open.append(span.end)
            }
        }
        return bad
    }
}

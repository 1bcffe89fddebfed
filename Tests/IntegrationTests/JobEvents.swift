import Foundation

/// The JSON lines `squeeze submit --json` printed so far.
enum JobEvents {
    static func parse(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The fraction of bytes done in the latest progress event, 0 before the first one.
    static func progress(_ output: String) -> Double {
        guard let last = parse(output).last(where: { $0["event"] as? String == "progress" }),
              let done = last["bytesDone"] as? Double, let total = last["bytes"] as? Double, total > 0 else { return 0 }
        return done / total
    }

    /// The `finished` event, if the job has ended.
    static func finished(_ output: String) -> [String: Any]? {
        parse(output).last { $0["event"] as? String == "finished" }
    }
}

import SqueezeGzip
import SqueezeProtocol

/// What a job request must satisfy before anything uses it, and the engine setting it asks for.
enum JobRequestRules {
    /// The range a following client may promise for its heartbeats.
    static let clientHeartbeatRange = ProtocolLimits.heartbeatMilliseconds

    /// Refuses request fields out of range before anything uses them, naming the field.
    static func checkFields(of request: JobRequest) throws {
        if let milliseconds = request.heartbeatMilliseconds, !clientHeartbeatRange.contains(milliseconds) {
            throw CoordinatorError("heartbeatMilliseconds \(milliseconds): must be \(clientHeartbeatRange.lowerBound)-\(clientHeartbeatRange.upperBound)")
        }
        for (name, path) in [("source", request.source), ("destination", request.destination ?? "")] {
            if path.utf8.contains(0) { throw CoordinatorError("\(name) contains a NUL byte") }
        }
        if request.source.isEmpty { throw CoordinatorError("source is empty") }
        if let submitter = request.submitter, submitter.utf8.count > 256 {
            throw CoordinatorError("submitter: \(submitter.utf8.count) bytes, at most 256")
        }
    }

    /// The engine setting a request asks for: its forced engine, or the level table's choice.
    static func setting(for request: JobRequest) throws -> EngineSetting {
        var engine: CompressionEngine?
        if let name = request.engine {
            guard let named = CompressionEngine(rawValue: name) else {
                let known = CompressionEngine.allCases.map(\.rawValue).joined(separator: ", ")
                throw CoordinatorError("unknown engine \(name.debugDescription): choose one of \(known)")
            }
            engine = named
        }
        do {
            return try LevelTable.setting(forLevel: request.level, engine: engine)
        } catch {
            throw CoordinatorError("level \(request.level): must be 0-9")
        }
    }
}

/// Worker → coordinator: the answer to a `StorageProbe`.
public struct ProbeReply: Codable, Sendable, Equatable {
    /// The job probed.
    public var jobID: UInt64
    /// Whether the worker sees the job's files and can write pieces in its workspace.
    public var shared: Bool
    /// Why not, when it cannot (logged by the coordinator).
    public var reason: String?
    /// When shared: the file the worker wrote in the workspace, holding the token (a name, no
    /// path: `answer-` and up to 32 letters or digits). The coordinator reads it back, which
    /// proves it sees what the worker writes, and removes it. Nil from workers before it: they
    /// are shared only when they see the coordinator's inode numbers.
    public var answer: String?
    /// When shared: what the worker's view keeps of the sample's stamp (nil: everything).
    public var view: SharedView?
    /// When shared: the CRC-32 of the sample's first `StorageProbe.sampleBytes` bytes (all of
    /// it when shorter) as the worker read them; the coordinator compares its own.
    public var sampleCRC: UInt32?

    /// Creates a reply.
    public init(jobID: UInt64, shared: Bool, reason: String? = nil) {
        self.jobID = jobID
        self.shared = shared
        self.reason = reason
    }

    /// Prefix of an answer file's name.
    public static let answerPrefix = "answer-"

    /// Whether `answer`, if any, is a name the coordinator may open in the workspace:
    /// `answer-` then 1-32 ASCII letters or digits (no path, nothing to escape).
    public var answerIsWellFormed: Bool {
        guard let answer else { return true }
        guard answer.hasPrefix(Self.answerPrefix) else { return false }
        let rest = answer.utf8.dropFirst(Self.answerPrefix.utf8.count)
        return (1...32).contains(rest.count) && rest.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

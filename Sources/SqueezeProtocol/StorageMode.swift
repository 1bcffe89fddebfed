/// How a worker gets at a job's files.
public enum StorageMode: String, Codable, Sendable, CaseIterable {
    /// Probe each job: shared when the worker sees the coordinator's paths, remote otherwise.
    case auto
    /// The worker sees the source and destination at the coordinator's paths: it reads blocks
    /// and writes compressed pieces itself, and only references cross the network.
    case shared
    /// Every block travels in messages (the worker sees no files).
    case remote
}

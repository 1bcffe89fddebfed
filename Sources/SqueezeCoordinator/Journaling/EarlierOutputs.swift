import SqueezeJournal

/// Where a resumed job finds what it published before the restart: its rows in the journal,
/// looked up a scan batch at a time, so a job of a million files never holds them all.
struct EarlierOutputs: Sendable {
    let journal: Journal
    let job: JobID

    /// The outputs the job had published among `paths` (relative path bytes). Blocking.
    func lookup(_ paths: [[UInt8]]) throws -> [[UInt8]: PublishedFile] {
        try journal.publishedFiles(of: job.value, among: paths)
    }
}

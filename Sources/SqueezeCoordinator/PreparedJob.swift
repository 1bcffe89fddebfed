import SqueezeIO
import SqueezeProtocol

/// A validated, scanned job, ready to plan.
struct PreparedJob: Sendable {
    var sourceDisplay: String
    var destination: BytePath
    var files: [PlannedFile]
    var skipped: [EntryNote]
    /// Files refused before any work: unreadable entries, outputs that exist without --force.
    var failed: [EntryNote]
    /// The job's private folder in the destination: temporaries and workers' pieces.
    var workspace: JobWorkspace
}

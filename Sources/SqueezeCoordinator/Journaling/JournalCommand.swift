import Foundation
import SqueezeJournal

/// What the actor asks the journal task to record, in order, off the actor.
enum JournalCommand: Sendable {
    /// A job ended at `at`: its state, totals and message.
    case ended(JobID, state: JournalJobState, totals: JournalTotals, message: String?, at: Date)
    /// The members of items `[ItemKey]` are about to be granted to their workers to publish:
    /// recorded (one transaction for them all, `GrantRecords`) before the grants leave, so the
    /// journal never lacks an output that is in place. Answered with
    /// `CoordinatorEvent.grantsRecorded`.
    case granted([ItemKey], [PublishedFile])
}

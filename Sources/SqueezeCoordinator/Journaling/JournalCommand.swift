import Foundation
import SqueezeJournal

/// What the actor asks the journal task to record, in order, off the actor.
enum JournalCommand: Sendable {
    /// A job ended at `at`: its state, totals and message.
    case ended(JobID, state: JournalJobState, totals: JournalTotals, message: String?, at: Date)
}

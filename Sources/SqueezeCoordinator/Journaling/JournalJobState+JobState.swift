import SqueezeJournal
import SqueezeProtocol

extension JournalJobState {
    /// The journal's name for a job's state.
    init(_ state: JobState) {
        switch state {
        case .running: self = .running
        case .completed: self = .completed
        case .cancelled: self = .cancelled
        case .failed: self = .failed
        }
    }
}

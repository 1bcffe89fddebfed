import SqueezeJournal
import SqueezeProtocol

extension JobState {
    /// A journaled job's state, as clients name it.
    init(_ state: JournalJobState) {
        switch state {
        case .running: self = .running
        case .completed: self = .completed
        case .cancelled: self = .cancelled
        case .failed: self = .failed
        }
    }
}

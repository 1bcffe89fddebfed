import SqueezeProtocol

/// An item waiting for a slot: its blocks in the message, or references to shared storage.
enum WorkerTask: Sendable {
    /// Blocks carried in the message (remote mode); the answer carries the compressed bytes.
    case payload(WorkAssignment)
    /// Blocks to read from shared storage; the answer reports the pieces written.
    case reference(RefAssignment)
    /// A slice of a directory to list, its small files compressed as a batch; the answer is a
    /// `scanned` with the listing and the pieces.
    case scan(ScanAssignment)

    /// The item's job.
    var jobID: UInt64 {
        switch self {
        case .payload(let work): work.jobID
        case .reference(let work): work.jobID
        case .scan(let scan): scan.jobID
        }
    }

    /// The item's id within its job.
    var itemID: UInt64 {
        switch self {
        case .payload(let work): work.itemID
        case .reference(let work): work.itemID
        case .scan(let scan): scan.itemID
        }
    }
}

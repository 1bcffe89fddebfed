import SqueezeProtocol

/// What the verify thread answers, one at a time, in arrival order.
enum VerifyTask: Sendable {
    /// A `verify` or `verifyBatch`: blocks to decode against their claims, and the listing
    /// check a `verifyBatch` carried, answered in the same `verified`.
    case blocks(VerifyRequest, listing: ListingCheck? = nil)
    /// A `checkListing`: a slice to list and digest.
    case listing(ListingCheck)

    /// The job it belongs to.
    var jobID: UInt64 {
        switch self {
        case .blocks(let request, _): request.jobID
        case .listing(let check): check.scan.jobID
        }
    }
}

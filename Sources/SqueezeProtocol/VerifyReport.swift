/// Verifying worker → coordinator: what each block of a `verify` item decoded to.
public struct VerifyReport: Sendable, Equatable {
    /// The `verify` message's check id.
    public var checkID: UInt64
    /// One per block, in the request's order.
    public var findings: [VerifyFinding]
    /// The answer to the listing check its `verifyBatch` carried; nil when it carried none, or
    /// the verifier could not list the slice.
    public var listing: ListingChecked?

    /// Creates a report.
    public init(checkID: UInt64, findings: [VerifyFinding]) {
        self.checkID = checkID
        self.findings = findings
    }
}

/// Shared-storage worker → coordinator: a `scan` is done (`scanned`): a section per directory
/// it read (the scan's own, then the subdirectories it went on into, depth first); `result`
/// holds one piece per small file, section after section, as a `resultRef` would.
public struct ScanReport: Sendable, Equatable {
    /// The job.
    public var jobID: UInt64
    /// The item (the slice).
    public var itemID: UInt64
    /// The attempt the pieces were written under.
    public var attempt: UInt64
    /// How the scan went.
    public var outcome: ScanOutcome
    /// For an outcome other than `listed`: why.
    public var reason: String
    /// What each directory read holds; none unless `listed`.
    public var sections: [ScanSection]
    /// The small files' pieces; nil when there are none, or when they follow in a `resultRef`
    /// of the same item and attempt.
    public var result: RefResult?

    /// Creates a report.
    public init(
        jobID: UInt64, itemID: UInt64, attempt: UInt64, outcome: ScanOutcome, reason: String = "", sections: [ScanSection] = [],
        result: RefResult? = nil
    ) {
        self.jobID = jobID
        self.itemID = itemID
        self.attempt = attempt
        self.outcome = outcome
        self.reason = reason
        self.sections = sections
        self.result = result
    }

}

extension ScanReport {
    /// Whether `name` can be an entry of a directory: one component, not `.` or `..`, no NUL.
    /// One pass, no arrays made: it runs on every name of every listing.
    public static func isEntryName(_ name: [UInt8]) -> Bool {
        guard !name.isEmpty, name.count <= ProtocolLimits.maxNameBytes else { return false }
        var onlyDots = true
        for byte in name {
            if byte == 0 || byte == UInt8(ascii: "/") { return false }
            if byte != UInt8(ascii: ".") { onlyDots = false }
        }
        // "." and "..": dots alone, one or two.
        return !(onlyDots && name.count <= 2)
    }
}

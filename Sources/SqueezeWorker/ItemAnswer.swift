import SqueezeProtocol

/// An item's answer, and what of it may have left already: a scan's listing goes ahead of its
/// batch's pieces, on the registration current at the time.
struct ItemAnswer: Sendable, Equatable {
    /// The whole answer: what waits for the coordinator's `keep`, and what leaves on any
    /// registration but the one a listing went ahead on.
    var whole: WireMessage
    /// The registration a scan's listing went ahead on; nil when nothing went ahead.
    var listedOn: UInt64?

    /// An answer that leaves in one message.
    init(_ whole: WireMessage) {
        self.whole = whole
        listedOn = nil
    }

    /// A scan's `scanned` with its pieces, whose listing alone already left on registration
    /// `listedOn` (nil: it did not).
    init(scanned report: ScanReport, listedOn: UInt64?) {
        whole = .scanned(report)
        self.listedOn = listedOn
    }

    /// What leaves on registration `current`. On the one the listing went ahead on, only the
    /// pieces, as a `resultRef`: the listing is ahead of them on the same connection. On any
    /// later one, the whole `scanned`: the coordinator either dropped the listing (it had
    /// declared this worker dead before it came) or took it, and then takes the pieces from
    /// the `scanned`.
    func message(on current: UInt64) -> WireMessage {
        guard current == listedOn, case .scanned(let report) = whole, let result = report.result else { return whole }
        return .resultRef(result)
    }
}

/// What one refused result means for its worker (`Quarantine.strike`), and so what to log:
/// the first one with its reason, the quarantine once, nothing in between.
enum Strike: Sendable, Equatable {
    /// Its first refused result.
    case first
    /// Another, not yet enough to quarantine it (or it already is).
    case repeated
    /// This one reached the threshold: it gets no more work from now on.
    case quarantined
}

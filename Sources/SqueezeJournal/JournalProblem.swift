/// A failure found by the journal's own code inside a database access, before the journal's path is
/// known to it: `Journal` turns it into a `JournalError` of the same kind on its file.
struct JournalProblem: Error {
    /// The kind of the resulting `JournalError`.
    var kind: JournalError.Kind
    /// Why, in words.
    var reason: String
}

extension JournalProblem: Sendable {}

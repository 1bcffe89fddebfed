extension JournalError {
    /// The kinds of journal failure.
    public enum Kind: String {
        /// Another process (or another `Journal` in this one) holds the journal's lock.
        case locked
        /// The journal has schema migrations this build does not know: a newer squeeze wrote it.
        case newerVersion
        /// The file is not an SQLite database, is damaged, or holds values no squeeze writes.
        case corrupt
        /// The file or its lock could not be opened (missing folder, permissions...).
        case cannotOpen
        /// A change could not be recorded (a full disk among others); nothing of it was.
        case writeFailed
        /// A read failed.
        case readFailed
    }
}

extension JournalError.Kind: Sendable {}

extension JournalError.Kind: CaseIterable {}

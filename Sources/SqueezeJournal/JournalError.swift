/// A journal that could not be opened, read or written: what went wrong, on which file, and why.
public struct JournalError: Error {
    /// What went wrong.
    public var kind: Kind
    /// The journal's path.
    public var path: String
    /// Why, in words (SQLite's message, errno's, or the inconsistency found).
    public var reason: String

    /// An error of `kind` on the journal at `path`.
    public init(kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }
}

extension JournalError: Equatable {}

extension JournalError: CustomStringConvertible {
    /// One line naming the file, what went wrong and, where there is one, what to do about it.
    public var description: String {
        switch kind {
        case .locked:
            "journal \(path) is in use by another process (\(lockHint))"
        case .newerVersion:
            "journal \(path) was written by a newer squeeze (\(reason)); refusing to use it"
        case .corrupt:
            "journal \(path) is damaged or not a squeeze journal (\(reason)); move it away to start fresh"
        case .cannotOpen:
            "cannot open journal \(path): \(reason)"
        case .writeFailed:
            "cannot record in journal \(path): \(reason)"
        case .readFailed:
            "cannot read journal \(path): \(reason)"
        }
    }

    /// Who the other user of a locked journal probably is, from the journal's file name.
    private var lockHint: String {
        if path.hasSuffix("/" + Journal.destinationFileName) || path == Journal.destinationFileName {
            return "another squeeze compress into the same destination?"
        }
        return "a second coordinator on the same --state?"
    }
}

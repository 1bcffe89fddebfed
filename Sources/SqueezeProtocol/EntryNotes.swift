/// Several skipped entries, or several failed files, found together (one listing, one batch of
/// the coordinator's planning, one batch's answer), sent as one event: a folder of symbolic
/// links or sockets costs the coordinator one JSON encoding and one message, not one per entry.
/// The CLI's `--json` still prints one `skipped` or `fileFailed` line per entry.
public struct EntryNotes: Codable, Sendable, Equatable {
    /// The entries, in the order they were found.
    public var entries: [EntryNote]

    /// Creates the event's payload.
    public init(entries: [EntryNote]) {
        self.entries = entries
    }
}

/// Several files' `.gz` are complete, fsynced and in place: the `fileDone`s of one writer
/// report or one worker's `published`, sent as one event, so a client that asked for file
/// events costs the coordinator one JSON encoding and one message per batch, not per file.
/// The CLI's `--json` still prints one `fileDone` line per file.
public struct FilesDone: Codable, Sendable, Equatable {
    /// The files, in the order they were published.
    public var files: [FileDone]

    /// Creates the event's payload.
    public init(files: [FileDone]) {
        self.files = files
    }
}

extension JobEvent {
    /// The events this one stands for, one per entry: the `fileDone`s of a `filesDone`, the
    /// `skipped`s of an `entriesSkipped`, the `fileFailed`s of a `filesFailed`; any other
    /// event is its own line. What the CLI's `--json` prints.
    public var lines: [JobEvent] {
        switch self {
        case .filesDone(let batch): batch.files.map(JobEvent.fileDone)
        case .entriesSkipped(let notes): notes.entries.map(JobEvent.skipped)
        case .filesFailed(let notes): notes.entries.map(JobEvent.fileFailed)
        default: [self]
        }
    }
}

/// What a job reports to its client, in order. Encoded as one flat JSON object with an
/// `event` key, which is also the `--json` output format.
public enum JobEvent: Sendable, Equatable {
    /// The job was planned.
    case started(JobStart)
    /// A non-regular entry was skipped.
    case skipped(EntryNote)
    /// A regular file could not be compressed.
    case fileFailed(EntryNote)
    /// Several non-regular entries were skipped (what coordinators send; `--json` prints a
    /// `skipped` line for each).
    case entriesSkipped(EntryNotes)
    /// Several regular files could not be compressed (what coordinators send for a listing or
    /// a batch; `--json` prints a `fileFailed` line for each).
    case filesFailed(EntryNotes)
    /// A file's `.gz` is in place (what `--json` prints per file; coordinators send `filesDone`).
    case fileDone(FileDone)
    /// Several files' `.gz` are in place: only to a request with `fileEvents`.
    case filesDone(FilesDone)
    /// Throttled progress.
    case progress(ProgressSnapshot)
    /// Part of the job's trace, for a request with `trace` (never sent otherwise).
    case trace(TraceChunk)
    /// The job ended; always the last event.
    case finished(JobSummary)
}

extension JobEvent: Codable {
    private enum Kind: String, Codable {
        case started, skipped, fileFailed, entriesSkipped, filesFailed, fileDone, filesDone, progress, trace, finished
    }

    private enum CodingKeys: String, CodingKey {
        case event
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .event) {
        case .started: self = .started(try JobStart(from: decoder))
        case .skipped: self = .skipped(try EntryNote(from: decoder))
        case .fileFailed: self = .fileFailed(try EntryNote(from: decoder))
        case .entriesSkipped: self = .entriesSkipped(try EntryNotes(from: decoder))
        case .filesFailed: self = .filesFailed(try EntryNotes(from: decoder))
        case .fileDone: self = .fileDone(try FileDone(from: decoder))
        case .filesDone: self = .filesDone(try FilesDone(from: decoder))
        case .progress: self = .progress(try ProgressSnapshot(from: decoder))
        case .trace: self = .trace(try TraceChunk(from: decoder))
        case .finished: self = .finished(try JobSummary(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .started(let payload):
            try container.encode(Kind.started, forKey: .event)
            try payload.encode(to: encoder)
        case .skipped(let payload):
            try container.encode(Kind.skipped, forKey: .event)
            try payload.encode(to: encoder)
        case .fileFailed(let payload):
            try container.encode(Kind.fileFailed, forKey: .event)
            try payload.encode(to: encoder)
        case .entriesSkipped(let payload):
            try container.encode(Kind.entriesSkipped, forKey: .event)
            try payload.encode(to: encoder)
        case .filesFailed(let payload):
            try container.encode(Kind.filesFailed, forKey: .event)
            try payload.encode(to: encoder)
        case .fileDone(let payload):
            try container.encode(Kind.fileDone, forKey: .event)
            try payload.encode(to: encoder)
        case .filesDone(let payload):
            try container.encode(Kind.filesDone, forKey: .event)
            try payload.encode(to: encoder)
        case .progress(let payload):
            try container.encode(Kind.progress, forKey: .event)
            try payload.encode(to: encoder)
        case .trace(let payload):
            try container.encode(Kind.trace, forKey: .event)
            try payload.encode(to: encoder)
        case .finished(let payload):
            try container.encode(Kind.finished, forKey: .event)
            try payload.encode(to: encoder)
        }
    }
}

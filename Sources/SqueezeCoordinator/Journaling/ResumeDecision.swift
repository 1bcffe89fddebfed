import SqueezeIO
import SqueezeJournal

/// What a resumed job does with a file the journal says it published before: policy only, so
/// it is tested without files.
enum ResumeDecision: Equatable {
    /// The output is the one the job published and the source is as it was: nothing to do.
    case keep
    /// Compress it again. `replacingOwn` when the job's own earlier output is still at the
    /// path (the source changed since): the new one replaces it, whatever `force` says.
    case redo(replacingOwn: Bool)

    /// The decision for a file the journal lists as `record`, whose source now has `stamp`,
    /// and whose output path holds a file of `output` (size, inode), or nothing (nil).
    /// The device is not compared: it may change across a reboot or a remount.
    static func decide(_ record: PublishedFile, source stamp: FileStamp, output: (size: UInt64, inode: UInt64)?) -> ResumeDecision {
        decide(record, source: stamp, ours: output.map { $0.size == record.outputSize && $0.inode == record.outputInode } ?? false)
    }

    /// The same, for the output found read as `output` (nil: nothing there). A record with inode 0 was
    /// published by a worker, whose inode the coordinator never saw: the file is the job's own
    /// when it is the member recorded, the same size and the trailer's CRC-32 the same.
    static func decide(_ record: PublishedFile, source stamp: FileStamp, found output: OutputFacts?) -> ResumeDecision {
        guard let output else { return decide(record, source: stamp, ours: false) }
        if record.outputInode == 0 {
            return decide(record, source: stamp, ours: output.startsAsGzip && output.size == record.outputSize && output.crc == record.crc)
        }
        return decide(record, source: stamp, output: (output.size, output.inode))
    }

    private static func decide(_ record: PublishedFile, source stamp: FileStamp, ours: Bool) -> ResumeDecision {
        let sameSource = stamp.size == record.sourceSize && stamp.inode == record.sourceInode
            && stamp.modifiedSeconds == record.sourceModifiedSeconds && stamp.modifiedNanoseconds == record.sourceModifiedNanoseconds
        if ours && sameSource { return .keep }
        return .redo(replacingOwn: ours)
    }
}

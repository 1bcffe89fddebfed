@testable import SqueezeCoordinator
import SqueezeIO
import SqueezeJournal
import Testing

@Suite("ResumeDecision")
struct ResumeDecisionTests {
    static let record = PublishedFile(
        job: 3, path: Array("a/b.txt".utf8), sourceSize: 1000, sourceModifiedSeconds: 1_700_000_000, sourceModifiedNanoseconds: 5,
        sourceDevice: 2049, sourceInode: 77, outputSize: 400, outputInode: 91, crc: 0xDEAD_BEEF)
    static let stamp = FileStamp(size: 1000, modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 5, device: 2049, inode: 77, permissions: 0o644)

    @Test("its own output and an unchanged source: kept, even on another device number")
    func keep() {
        #expect(ResumeDecision.decide(Self.record, source: Self.stamp, output: (400, 91)) == .keep)
        var moved = Self.stamp
        moved.device = 66
        #expect(ResumeDecision.decide(Self.record, source: moved, output: (400, 91)) == .keep)
    }

    @Test("a source that changed in size, mtime or identity: redone over the job's own output")
    func sourceChanged() {
        var grown = Self.stamp
        grown.size += 1
        var touched = Self.stamp
        touched.modifiedNanoseconds += 1
        var replaced = Self.stamp
        replaced.inode += 1
        for stamp in [grown, touched, replaced] {
            #expect(ResumeDecision.decide(Self.record, source: stamp, output: (400, 91)) == .redo(replacingOwn: true))
        }
    }

    @Test("an output that is gone, or is not the one the job published: redone, never replacing someone else's file")
    func outputNotOurs() {
        #expect(ResumeDecision.decide(Self.record, source: Self.stamp, output: nil) == .redo(replacingOwn: false))
        #expect(ResumeDecision.decide(Self.record, source: Self.stamp, output: (400, 92)) == .redo(replacingOwn: false))
        #expect(ResumeDecision.decide(Self.record, source: Self.stamp, output: (401, 91)) == .redo(replacingOwn: false))
    }

    @Test("a worker-published record (no inode): the output is the job's own when it is the member recorded, by size and trailer CRC")
    func workerPublished() {
        var record = Self.record
        record.outputInode = 0
        func found(size: UInt64 = 400, crc: UInt32 = 0xDEAD_BEEF, gzip: Bool = true) -> OutputFacts {
            OutputFacts(size: size, device: 1, inode: 12345, modifiedSeconds: 0, modifiedNanoseconds: 0, startsAsGzip: gzip, crc: crc, isize: 1000)
        }
        #expect(ResumeDecision.decide(record, source: Self.stamp, found: found()) == .keep)
        var touched = Self.stamp
        touched.modifiedSeconds += 1
        #expect(ResumeDecision.decide(record, source: touched, found: found()) == .redo(replacingOwn: true))
        #expect(ResumeDecision.decide(record, source: Self.stamp, found: found(crc: 1)) == .redo(replacingOwn: false))
        #expect(ResumeDecision.decide(record, source: Self.stamp, found: found(size: 401)) == .redo(replacingOwn: false))
        #expect(ResumeDecision.decide(record, source: Self.stamp, found: found(gzip: false)) == .redo(replacingOwn: false))
        #expect(ResumeDecision.decide(record, source: Self.stamp, found: nil) == .redo(replacingOwn: false))
        // A record with an inode still goes by the inode, whatever the CRC.
        #expect(ResumeDecision.decide(Self.record, source: Self.stamp, found: found()) == .redo(replacingOwn: false))
    }
}

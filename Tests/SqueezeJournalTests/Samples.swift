import Foundation
import SqueezeJournal

/// Test records.
enum Samples {
    /// A job with every field set, running unless told.
    static func job(_ id: UInt64, state: JournalJobState = .running, finishedAt: Date? = nil) -> JournalJob {
        JournalJob(
            id: id,
            request: Data(#"{"source":"/data/\#(id)","level":6}"#.utf8),
            source: "/data/\(id)",
            destination: "/out/\(id) é",
            state: state,
            submittedBy: "rq7+zHDdBD=Yx}5M4&SlyQ4OxK3@2x#A5Z6+K2aT",
            createdAt: Date(timeIntervalSinceReferenceDate: 790_000_000.123_456_789 + Double(id)),
            finishedAt: finishedAt,
            totals: JournalTotals(filesDone: 3, filesFailed: 1, filesSkipped: 2, bytesIn: 1 << 40, bytesOut: 12_345),
            message: state == .failed ? "disk full on /out" : nil
        )
    }

    /// A published file of `job` at `path`, its values derived from `seed`.
    static func published(job: UInt64, path: [UInt8], seed: UInt64 = 7) -> PublishedFile {
        PublishedFile(
            job: job,
            path: path,
            sourceSize: 1_000 + seed,
            sourceModifiedSeconds: 1_700_000_000 + Int64(seed),
            sourceModifiedNanoseconds: 123_456_789,
            sourceDevice: 2049,
            sourceInode: 100_000 + seed,
            outputSize: 400 + seed,
            outputInode: 200_000 + seed,
            crc: UInt32(truncatingIfNeeded: seed &* 2_654_435_761)
        )
    }

    /// `count` published files of `job`, paths "dir/file-N" from `first`.
    static func batch(job: UInt64, first: Int, count: Int) -> [PublishedFile] {
        (first..<(first + count)).map { published(job: job, path: Array("dir/file-\($0)".utf8), seed: UInt64($0)) }
    }
}

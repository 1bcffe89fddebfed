import Dispatch
import Foundation
import GRDB
import SqueezeJournal
import Testing

@Suite("Journal published files")
struct JournalPublishedTests {
    @Test("published files round-trip, with a non-UTF-8 path, an empty one and values above Int64.max; upsert by (job, path)")
    func roundTrip() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.destinationFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            try journal.insertJob(Samples.job(2))
            let odd = PublishedFile(
                job: 1,
                path: [0xFF, 0xFE, 0x2F, 0x00, 0x61, 0xC3],
                sourceSize: UInt64.max,
                sourceModifiedSeconds: -1_000_000,
                sourceModifiedNanoseconds: 999_999_999,
                sourceDevice: UInt64(Int64.max) + 1,
                sourceInode: UInt64.max,
                outputSize: UInt64.max - 1,
                outputInode: UInt64.max,
                crc: UInt32.max
            )
            let empty = Samples.published(job: 1, path: [], seed: 0)
            let plain = Samples.published(job: 1, path: Array("a/b.txt".utf8))
            let other = Samples.published(job: 2, path: Array("a/b.txt".utf8), seed: 9)
            try journal.recordPublished([odd, empty, plain, other])
            try journal.recordPublished([])

            let expected = [odd.path: odd, empty.path: empty, plain.path: plain]
            #expect(try journal.publishedFiles(of: 1) == expected)
            #expect(try journal.publishedFiles(of: 2) == [other.path: other])
            #expect(try journal.publishedFiles(of: 3).isEmpty)
            // Looked up a batch at a time, as a resumed job's scan does: only the paths asked, only the job's.
            let asked = [plain.path, [], Array("a/missing".utf8), odd.path, Array("a/b.txt".utf8)]
            #expect(try journal.publishedFiles(of: 1, among: asked) == expected)
            #expect(try journal.publishedFiles(of: 2, among: asked) == [other.path: other])
            #expect(try journal.publishedFiles(of: 1, among: [Array("a/missing".utf8)]).isEmpty)
            #expect(try journal.publishedFiles(of: 1, among: []).isEmpty)
            #expect(try journal.publishedCount(of: 1) == 3 && journal.publishedCount(of: 2) == 1 && journal.publishedCount(of: 3) == 0)

            var replaced = plain
            replaced.outputSize = 1
            replaced.crc = 0
            try journal.recordPublished([replaced])
            #expect(try journal.publishedFiles(of: 1)[plain.path] == replaced)
            #expect(try journal.publishedFiles(of: 1).count == 3)
            journal.close()

            let reopened = try Journal(path: path)
            #expect(try reopened.publishedFiles(of: 1) == [odd.path: odd, empty.path: empty, plain.path: replaced])
        }
    }

    @Test("recordPublished is all or nothing: on a full disk a batch fails whole, what was committed stays, the journal reopens")
    func fullDisk() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path, maxPageCount: 40)
            try journal.insertJob(Samples.job(1))
            for batch in 0..<10 {
                try journal.recordPublished(Samples.batch(job: 1, first: batch * 64, count: 64))
            }
            let committed = try journal.publishedFiles(of: 1)
            #expect(committed.count == 640)

            let large = Samples.batch(job: 1, first: 640, count: 20_000)
            let error = #expect(throws: JournalError.self) { try journal.recordPublished(large) }
            #expect(error?.kind == .writeFailed)
            #expect(error?.description == "cannot record in journal \(path): database or disk is full")
            #expect(try journal.publishedFiles(of: 1) == committed, "none of the failed batch, all of the earlier ones")

            try journal.recordPublished(Samples.batch(job: 1, first: 640, count: 10))
            #expect(try journal.publishedFiles(of: 1).count == 650, "the journal still records after a full disk")
            journal.close()

            let reopened = try Journal(path: path)
            #expect(try reopened.publishedFiles(of: 1).count == 650)
            try reopened.recordPublished(large)
            #expect(try reopened.publishedFiles(of: 1).count == 20_640)
        }
    }

    @Test("calls from several threads at once are all recorded")
    func concurrentCalls() throws {
        try withTemporaryFolder { folder throws in
            let journal = try Journal(path: folder + "/" + Journal.stateFileName)
            for job in 1...4 { try journal.insertJob(Samples.job(UInt64(job))) }
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                let job = UInt64(index + 1)
                for batch in 0..<50 {
                    try? journal.recordPublished(Samples.batch(job: job, first: batch * 64, count: 64))
                    _ = try? journal.job(job)
                    try? journal.updateJob(job, state: .running, totals: JournalTotals(filesDone: (batch + 1) * 64), finishedAt: nil, message: nil)
                }
            }
            for job in 1...4 {
                #expect(try journal.publishedFiles(of: UInt64(job)).count == 3_200)
                #expect(try journal.job(UInt64(job))?.totals.filesDone == 3_200)
            }
        }
    }

    @Test("recording 200,000 published files in batches of 64 (prints the time; no assertion)")
    func recordingCost() throws {
        try withTemporaryFolder { folder throws in
            let journal = try Journal(path: folder + "/" + Journal.stateFileName)
            try journal.insertJob(Samples.job(1))
            let total = 200_000
            let batches = stride(from: 0, to: total, by: 64).map { Samples.batch(job: 1, first: $0, count: min(64, total - $0)) }
            let clock = ContinuousClock()
            let elapsed = try clock.measure {
                for batch in batches { try journal.recordPublished(batch) }
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("journal: recorded \(total) published files in batches of 64 in \(String(format: "%.2f", seconds)) s, \(String(format: "%.1f", seconds / Double(total) * 1e6)) µs a file")
            #expect(try journal.publishedFiles(of: 1).count == total)
        }
    }

    @Test("a folder's records take a row per 4,096, not one each; a path recorded again in a row whose names meet an older one's reads as its newest record and counts once")
    func rowsPerFolder() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            // 10,000 files of one folder, given out of order, with the root's and another folder's among them.
            let many = (0..<10_000).map { Samples.published(job: 1, path: Array(String(format: "big/%05d", $0).utf8), seed: UInt64($0)) }
            let others = [Samples.published(job: 1, path: Array("top".utf8)), Samples.published(job: 1, path: Array("big/sub/x".utf8))]
            try journal.recordPublished(many.reversed() + others)
            #expect(try journal.publishedCount(of: 1) == 10_002)
            #expect(try rowCount(path, journal) == 5, "three rows for the 10,000, one for the root, one for big/sub")

            // Two files again, one recorded twice in the same call (the later wins), and a new one.
            var again = many[5_000]
            again.crc = 1
            var twice = many[7]
            twice.outputSize = 1
            var twiceLater = twice
            twiceLater.outputSize = 2
            let new = Samples.published(job: 1, path: Array("big/05000a".utf8))
            try journal.recordPublished([twice, again, new, twiceLater])
            #expect(try journal.publishedCount(of: 1) == 10_003)
            #expect(try journal.publishedFiles(of: 1, among: [again.path, twice.path, new.path, many[6].path])
                    == [again.path: again, twice.path: twiceLater, new.path: new, many[6].path: many[6]])
            let all = try journal.publishedFiles(of: 1)
            #expect(all.count == 10_003 && all[again.path] == again && all[twice.path] == twiceLater && all[many[9_999].path] == many[9_999])
        }
    }

    @Test("rows whose names interleave (outputs recorded as they finished): a lookup finds every path, the newest record of one recorded again, and nothing of another job or folder")
    func interleavedRows() throws {
        try withTemporaryFolder { folder throws in
            let journal = try Journal(path: folder + "/" + Journal.stateFileName)
            try journal.insertJob(Samples.job(1))
            try journal.insertJob(Samples.job(2))
            let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
            let files = names.enumerated().map { Samples.published(job: 1, path: Array("d/\($1)".utf8), seed: UInt64($0)) }
            for start in 0..<3 { try journal.recordPublished(stride(from: start, to: 9, by: 3).map { files[$0] }) }
            var again = files[4]
            again.crc = 7
            try journal.recordPublished([again, Samples.published(job: 2, path: Array("d/e".utf8)), Samples.published(job: 1, path: Array("x/e".utf8))])
            let asked = files.map(\.path) + [Array("d/z".utf8)]
            var expected = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0) })
            expected[again.path] = again
            #expect(try journal.publishedFiles(of: 1, among: asked) == expected)
            #expect(try journal.publishedFiles(of: 1, among: [again.path]) == [again.path: again])
            #expect(try journal.publishedCount(of: 1) == 10)
        }
    }

    /// The journal's rows of published files, read beside it.
    private func rowCount(_ path: String, _ journal: Journal) throws -> Int {
        try DatabaseQueue(path: path, configuration: { var c = Configuration(); c.readonly = true; return c }())
            .read { try Int.fetchOne($0, sql: "SELECT count(*) FROM publishedGroup") ?? 0 }
    }
}

import Foundation
import SqueezeJournal
import Testing

@Suite("Journal jobs")
struct JournalJobTests {
    @Test("jobs round-trip: insert, update, job(id), runningJobs oldest first, recentJobs newest first")
    func roundTrip() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path)
            #expect(try journal.nextJobID() == 1)
            var jobs: [JournalJob] = []
            for _ in 0..<4 {
                let job = Samples.job(try journal.nextJobID())
                try journal.insertJob(job)
                jobs.append(job)
            }
            #expect(jobs.map(\.id) == [1, 2, 3, 4])
            #expect(try journal.job(3) == jobs[2])
            #expect(try journal.job(99) == nil)

            let totals = JournalTotals(
                filesDone: 10, filesFailed: 2, filesSkipped: 1, bytesIn: UInt64.max, bytesOut: 1 << 63, filesPlanned: 14, bytesPlanned: UInt64.max - 1)
            let end = Date(timeIntervalSinceReferenceDate: 790_000_123.987_654_321)
            try journal.updateJob(2, state: .failed, totals: totals, finishedAt: end, message: "no space left on /out")
            try journal.updateJob(4, state: .completed, totals: totals, finishedAt: end, message: nil)
            jobs[1].state = .failed
            jobs[1].totals = totals
            jobs[1].finishedAt = end
            jobs[1].message = "no space left on /out"
            jobs[3].state = .completed
            jobs[3].totals = totals
            jobs[3].finishedAt = end
            #expect(try journal.job(2) == jobs[1])
            #expect(try journal.runningJobs() == [jobs[0], jobs[2]])
            #expect(try journal.recentJobs(limit: 3) == [jobs[3], jobs[2], jobs[1]])
            #expect(try journal.recentJobs(limit: 10).map(\.id) == [4, 3, 2, 1])
            #expect(try journal.recentJobs(limit: 0) == [])
            journal.close()

            let reopened = try Journal(path: path)
            #expect(try reopened.nextJobID() == 5)
            #expect(try reopened.recentJobs(limit: 10) == jobs.reversed())
        }
    }

    @Test("an empty request, a job id above Int64.max, and ids ordered as unsigned")
    func edges() throws {
        try withTemporaryFolder { folder throws in
            let journal = try Journal(path: folder + "/" + Journal.stateFileName)
            var empty = Samples.job(5)
            empty.request = Data()
            empty.message = ""
            try journal.insertJob(empty)
            #expect(try journal.job(5) == empty)

            let high = Samples.job(UInt64.max - 1)
            try journal.insertJob(high)
            #expect(try journal.job(UInt64.max - 1) == high)
            #expect(try journal.nextJobID() == UInt64.max)
            #expect(try journal.runningJobs().map(\.id) == [5, UInt64.max - 1])
            #expect(try journal.recentJobs(limit: 1).map(\.id) == [UInt64.max - 1])

            try journal.insertJob(Samples.job(UInt64.max))
            let exhausted = #expect(throws: JournalError.self) { try journal.nextJobID() }
            #expect(exhausted?.kind == .readFailed)
        }
    }

    @Test("a duplicate id, an update of a missing job and negative counts are refused, and change nothing")
    func refusals() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            var duplicate = Samples.job(1)
            duplicate.source = "/elsewhere"
            let error = #expect(throws: JournalError.self) { try journal.insertJob(duplicate) }
            #expect(error?.kind == .writeFailed)
            #expect(error?.description.hasPrefix("cannot record in journal \(path): ") == true)
            #expect(try journal.job(1) == Samples.job(1))

            let missing = #expect(throws: JournalError.self) {
                try journal.updateJob(2, state: .completed, totals: JournalTotals(), finishedAt: Date(), message: nil)
            }
            #expect(missing?.kind == .writeFailed)
            #expect(missing?.reason == "no job 2")

            let negative = #expect(throws: JournalError.self) {
                try journal.updateJob(1, state: .completed, totals: JournalTotals(filesDone: -1), finishedAt: Date(), message: nil)
            }
            #expect(negative?.kind == .writeFailed)
            #expect(try journal.job(1) == Samples.job(1))
        }
    }

    @Test("prune keeps running jobs and the newest N, and removes the rest with their published files")
    func prune() throws {
        try withTemporaryFolder { folder throws in
            let journal = try Journal(path: folder + "/" + Journal.stateFileName)
            let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)
            let states: [JournalJobState] = [.running, .completed, .cancelled, .completed, .failed, .running]
            for (index, state) in states.enumerated() {
                let id = UInt64(index + 1)
                let finishedAt = state == .running ? nil : t0.addingTimeInterval(Double(index) * 100)
                try journal.insertJob(Samples.job(id, state: state, finishedAt: finishedAt))
                try journal.recordPublished(Samples.batch(job: id, first: 0, count: 10))
            }

            // The newest 3 are 6, 5, 4; 1 runs; 2 and 3 go.
            #expect(try journal.prune(keepingNewest: 3, olderThan: nil) == 2)
            #expect(try journal.recentJobs(limit: 10).map(\.id) == [6, 5, 4, 1])
            #expect(try journal.publishedFiles(of: 2).isEmpty)
            #expect(try journal.publishedFiles(of: 3).isEmpty)
            #expect(try journal.publishedFiles(of: 4).count == 10)
            #expect(try journal.publishedFiles(of: 1).count == 10)

            // Job 4 ended at t0 + 300, job 5 at t0 + 400.
            #expect(try journal.prune(keepingNewest: 10, olderThan: t0.addingTimeInterval(350)) == 1)
            #expect(try journal.recentJobs(limit: 10).map(\.id) == [6, 5, 1])
            #expect(try journal.publishedFiles(of: 4).isEmpty)

            try journal.updateJob(6, state: .completed, totals: JournalTotals(), finishedAt: t0.addingTimeInterval(600), message: nil)
            #expect(try journal.prune(keepingNewest: 0, olderThan: nil) == 2)
            #expect(try journal.recentJobs(limit: 10).map(\.id) == [1])
            #expect(try journal.runningJobs().map(\.id) == [1])
            #expect(try journal.publishedFiles(of: 6).isEmpty)
            #expect(try journal.nextJobID() == 7, "a pruned job's id is not handed out again")
        }
    }
}

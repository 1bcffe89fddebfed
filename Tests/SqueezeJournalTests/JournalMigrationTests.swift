import Foundation
import GRDB
@testable import SqueezeJournal
import Testing

@Suite("Journal migrations")
struct JournalMigrationTests {
    @Test("a journal of the first schema (v1) is migrated in place: its jobs read back with planned totals 0 until recorded, and it takes new records")
    func fromFirstSchema() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let old = try DatabaseQueue(path: path)
            try JournalSchema.migrator.migrate(old, upTo: "v1")
            let published = Samples.published(job: 1, path: Array("a/b.txt".utf8))
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO job (id, request, source, destination, state, submittedBy, createdAt, finishedAt,
                        filesDone, filesFailed, filesSkipped, bytesIn, bytesOut, message)
                    VALUES (1, x'7b7d', '/data/src', '/data/src.squeezed', 'running', 'ann@host', 790000000.5, NULL, 3, 1, 0, 3000, 900, NULL)
                    """)
                try db.execute(sql: "UPDATE jobSequence SET largest = 1")
            }
            try old.close()
            let journal = try Journal(path: path)
            try journal.recordPublished([published])
            let job = try #require(try journal.job(1))
            #expect(job.source == "/data/src" && job.submittedBy == "ann@host" && job.state == .running)
            #expect(job.totals == JournalTotals(filesDone: 3, filesFailed: 1, bytesIn: 3000, bytesOut: 900))
            #expect(try journal.publishedFiles(of: 1)[published.path] == published)
            let totals = JournalTotals(filesDone: 5, bytesIn: 5000, bytesOut: 1500, filesPlanned: 5, bytesPlanned: 5000)
            try journal.updateJob(1, state: .completed, totals: totals, finishedAt: Date(), message: nil)
            #expect(try journal.job(1)?.totals == totals)
            #expect(try journal.nextJobID() == 2)
            journal.close()
            let applied = try DatabaseQueue(path: path).read { try JournalSchema.migrator.appliedIdentifiers($0) }
            #expect(applied == ["v1", "v2"])
        }
    }
}

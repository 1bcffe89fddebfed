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
            #expect(applied == ["v1", "v2", "v3"])
        }
    }

    @Test("a v2 journal's published files, a row each, become a row per job and folder (v3): every record reads back the same, the old table is gone")
    func regroupsPublishedFiles() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let old = try DatabaseQueue(path: path)
            try JournalSchema.migrator.migrate(old, upTo: "v2")
            // More rows than one regrouping pass takes (65,536), over two jobs and three folders.
            var records: [PublishedFile] = []
            for index in 0..<70_000 {
                let folder = ["", "a", "a/b"][index % 3]
                let name = "f\(index)"
                records.append(Samples.published(job: UInt64(1 + index % 2), path: Array((folder.isEmpty ? name : folder + "/" + name).utf8), seed: UInt64(index)))
            }
            try old.write { db in
                try Self.insertRunningJobs(1...2, in: db)
                try db.execute(sql: "UPDATE jobSequence SET largest = 2")
                try Self.insertLegacyRows(records, in: db)
            }
            try old.close()

            let journal = try Journal(path: path)
            for job in [UInt64(1), 2] {
                let expected = Dictionary(uniqueKeysWithValues: records.filter { $0.job == job }.map { ($0.path, $0) })
                #expect(try journal.publishedFiles(of: job) == expected)
                #expect(try journal.publishedCount(of: job) == 35_000)
                let asked = [Array("a/b/f5".utf8), Array("f0".utf8), Array("a/f1".utf8), Array("a/missing".utf8)]
                #expect(try journal.publishedFiles(of: job, among: asked) == expected.filter { asked.contains($0.key) })
            }
            journal.close()
            let tables = try DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            }
            #expect(tables == ["grdb_migrations", "job", "jobSequence", "publishedGroup"])
        }
    }

    @Test("regrouping goes on from chunk to chunk whatever the chunk: past a job's end, a folder's, and a job's empty path")
    func regroupsPastAnEmptyPath() throws {
        for chunk in 1...5 {
            try withTemporaryFolder { folder throws in
                let path = folder + "/" + Journal.stateFileName
                let queue = try DatabaseQueue(path: path)
                try JournalSchema.migrator.migrate(queue)
                let records = [(1, ""), (1, "a"), (1, "d/b"), (2, ""), (2, "x")].enumerated().map { index, entry in
                    Samples.published(job: UInt64(entry.0), path: Array(entry.1.utf8), seed: UInt64(index))
                }
                try queue.write { db in
                    try Self.insertRunningJobs(1...2, in: db)
                    // v1's table as it was, beside v3's.
                    try db.execute(sql: """
                        CREATE TABLE published (job INTEGER NOT NULL, path BLOB NOT NULL, sourceSize INTEGER NOT NULL,
                            sourceModifiedSeconds INTEGER NOT NULL, sourceModifiedNanoseconds INTEGER NOT NULL, sourceDevice INTEGER NOT NULL,
                            sourceInode INTEGER NOT NULL, outputSize INTEGER NOT NULL, outputInode INTEGER NOT NULL, crc INTEGER NOT NULL,
                            PRIMARY KEY (job, path)) WITHOUT ROWID
                        """)
                    try Self.insertLegacyRows(records, in: db)
                    try JournalSchema.regroupPublished(db, chunk: chunk)
                }
                try queue.close()
                let journal = try Journal(path: path)
                for job in [UInt64(1), 2] {
                    let expected = Dictionary(uniqueKeysWithValues: records.filter { $0.job == job }.map { ($0.path, $0) })
                    #expect(try journal.publishedFiles(of: job) == expected, "chunk \(chunk), job \(job)")
                }
            }
        }
    }

    /// Running jobs `ids`, with the columns every schema has.
    private static func insertRunningJobs(_ ids: ClosedRange<Int>, in db: Database) throws {
        for id in ids {
            try db.execute(sql: """
                INSERT INTO job (id, request, source, destination, state, submittedBy, createdAt, filesDone, filesFailed, filesSkipped, bytesIn, bytesOut)
                VALUES (?, x'7b7d', '/src', '/out', 'running', 'ann', 790000000, 0, 0, 0, 0, 0)
                """, arguments: [id])
        }
    }

    /// `files` as rows of v1's table of a row per file.
    private static func insertLegacyRows(_ files: [PublishedFile], in db: Database) throws {
        let insert = try db.makeStatement(sql: """
            INSERT INTO published (\(JournalSchema.legacyPublishedColumns)) VALUES (?, coalesce(?, x''), ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for file in files {
            try insert.execute(arguments: [Int64(bitPattern: file.job), Data(file.path), Int64(bitPattern: file.sourceSize),
                                           file.sourceModifiedSeconds, file.sourceModifiedNanoseconds, Int64(bitPattern: file.sourceDevice),
                                           Int64(bitPattern: file.sourceInode), Int64(bitPattern: file.outputSize),
                                           Int64(bitPattern: file.outputInode), Int64(file.crc)])
        }
    }
}

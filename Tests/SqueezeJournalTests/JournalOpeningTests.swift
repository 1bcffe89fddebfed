import Foundation
import GRDB
import SqueezeJournal
import Testing

@Suite("Journal opening")
struct JournalOpeningTests {
    @Test("a second Journal on the same file is refused with .locked while the first is open, and accepted after close()")
    func lockedInProcess() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let first = try Journal(path: path)
            try first.insertJob(Samples.job(1))
            let error = #expect(throws: JournalError.self) { try Journal(path: path) }
            #expect(error?.kind == .locked)
            #expect(error?.description == "journal \(path) is in use by another process (a second coordinator on the same --state?)")
            // The refusal did not disturb the first.
            try first.insertJob(Samples.job(2))
            #expect(try first.nextJobID() == 3)
            first.close()
            first.close()

            let second = try Journal(path: path)
            #expect(try second.nextJobID() == 3)
            let closed = #expect(throws: JournalError.self) { try first.job(1) }
            #expect(closed?.kind == .readFailed)
        }
    }

    @Test("a journal flocked by another process is refused with .locked, and opens once that process lets go")
    func lockedByAnotherProcess() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.destinationFileName
            try Journal(path: path).insertJob(Samples.job(1))

            // flock(1) takes the lock, then its shell says so and waits for its input to end.
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            holder.arguments = ["--close", path, "-c", "echo locked; exec cat"]
            let input = Pipe()
            let output = Pipe()
            holder.standardInput = input
            holder.standardOutput = output
            try holder.run()
            var said = Data()
            while !String(decoding: said, as: UTF8.self).contains("locked") {
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { break }
                said.append(more)
            }
            let error = #expect(throws: JournalError.self) { try Journal(path: path) }
            try input.fileHandleForWriting.close()
            holder.waitUntilExit()
            #expect(error?.kind == .locked)
            #expect(error?.description == "journal \(path) is in use by another process (another squeeze compress into the same destination?)")

            #expect(try Journal(path: path).job(1) == Samples.job(1))
        }
    }

    @Test("a journal with a migration this build does not know is refused with .newerVersion, and left unchanged")
    func newerVersion() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            journal.close()
            let raw = try DatabaseQueue(path: path)
            try raw.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
            try raw.close()

            let error = try refusal(of: path)
            #expect(error?.kind == .newerVersion)
            #expect(error?.description == "journal \(path) was written by a newer squeeze (unknown schema migrations: v99); refusing to use it")
            // Refused, not locked out: the lock went with the refusal.
            #expect(try refusal(of: path)?.kind == .newerVersion)
        }
    }

    @Test("a file of garbage bytes is refused with .corrupt, and left unchanged")
    func garbage() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            var generator = SystemRandomNumberGenerator()
            let garbage = Data((0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try garbage.write(to: URL(fileURLWithPath: path))

            let error = try refusal(of: path)
            #expect(error?.kind == .corrupt)
            #expect(error?.description == "journal \(path) is damaged or not a squeeze journal (SQLite: file is not a database); move it away to start fresh")
        }
    }

    @Test("a truncated journal is refused with .corrupt, and left unchanged")
    func truncated() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            for batch in 0..<40 { try journal.recordPublished(Samples.batch(job: 1, first: batch * 64, count: 64)) }
            journal.close()
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(whole.count > 20 * 4096)
            let half = whole.prefix(whole.count / 2)
            try half.write(to: URL(fileURLWithPath: path))

            let error = try refusal(of: path)
            #expect(error?.kind == .corrupt)
            #expect(error?.description.hasPrefix("journal \(path) is damaged or not a squeeze journal (SQLite: ") == true)
        }
    }

    @Test("values no squeeze writes are reported as .corrupt, naming the row and column")
    func corruptValues() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.stateFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            try journal.insertJob(Samples.job(2))
            try journal.insertJob(Samples.job(3))
            try journal.insertJob(Samples.job(4))
            try journal.recordPublished([Samples.published(job: 2, path: Array("x".utf8))])
            try journal.recordPublished([Samples.published(job: 3, path: Array("d/a".utf8)), Samples.published(job: 3, path: Array("d/b".utf8))])
            try journal.recordPublished([Samples.published(job: 4, path: Array("d/a".utf8)), Samples.published(job: 4, path: Array("d/b".utf8))])
            journal.close()
            let raw = try DatabaseQueue(path: path)
            try raw.write { db in
                try db.execute(sql: "UPDATE job SET state = 'paused' WHERE id = 1")
                try db.execute(sql: "UPDATE job SET filesDone = -3 WHERE id = 2")
                // A row's records cut short, a count that disagrees with them, names out of order.
                try db.execute(sql: "UPDATE publishedGroup SET files = substr(files, 1, length(files) - 1) WHERE job = 2")
                try db.execute(sql: "UPDATE publishedGroup SET count = 3 WHERE job = 3")
                try db.execute(sql: """
                    UPDATE publishedGroup SET files = CAST(substr(files, 1 + length(files) / 2) || substr(files, 1, length(files) / 2) AS BLOB) WHERE job = 4
                    """)
            }
            try raw.close()

            let reopened = try Journal(path: path)
            let state = #expect(throws: JournalError.self) { try reopened.job(1) }
            #expect(state?.kind == .corrupt)
            #expect(state?.reason == #"job 1: state is "paused", not a job state"#)
            let count = #expect(throws: JournalError.self) { try reopened.job(2) }
            #expect(count?.reason == "job 2: filesDone is -3, not a count")
            let short = #expect(throws: JournalError.self) { try reopened.publishedFiles(of: 2) }
            #expect(short?.kind == .corrupt)
            #expect(short?.reason == #"published files of job 2 in folder "": a record is cut short"#)
            let counted = #expect(throws: JournalError.self) { try reopened.publishedFiles(of: 3, among: [Array("d/b".utf8)]) }
            #expect(counted?.reason == #"published files of job 3 in folder "d/": 2 records where the row says 3"#)
            let order = #expect(throws: JournalError.self) { try reopened.publishedFiles(of: 4) }
            #expect(order?.reason == #"published files of job 4 in folder "d/": names out of order"#)
        }
    }

    @Test("a journal in a folder that does not exist is refused with .cannotOpen, and the folder is not created")
    func missingFolder() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/absent/" + Journal.stateFileName
            let error = #expect(throws: JournalError.self) { try Journal(path: path) }
            #expect(error?.kind == .cannotOpen)
            #expect(error?.description == "cannot open journal \(path): open: No such file or directory")
            #expect(try contents(of: folder) == [])
        }
    }

    @Test("closeAndRemove leaves no journal, -wal or -shm file, and a new journal starts empty")
    func closeAndRemove() throws {
        try withTemporaryFolder { folder throws in
            let path = folder + "/" + Journal.destinationFileName
            let journal = try Journal(path: path)
            try journal.insertJob(Samples.job(1))
            try journal.recordPublished(Samples.batch(job: 1, first: 0, count: 100))
            #expect(try contents(of: folder).count == 3, "the journal, its -wal and its -shm while open")
            try journal.closeAndRemove()
            #expect(try contents(of: folder) == [])
            try journal.closeAndRemove()
            journal.close()

            let fresh = try Journal(path: path)
            #expect(try fresh.nextJobID() == 1)
        }
    }

    /// Opens `path` expecting a refusal that leaves the file byte for byte, and its folder's names, as they
    /// were (no -wal or -shm left behind); returns the error.
    private func refusal(of path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JournalError? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let names = try contents(of: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = #expect(throws: JournalError.self, sourceLocation: sourceLocation) { try Journal(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file is unchanged", sourceLocation: sourceLocation)
        #expect(try contents(of: folder) == names, sourceLocation: sourceLocation)
        return error
    }
}

import Foundation
import GRDB

extension Journal {
    /// The id for a new job: 1 + the largest id ever recorded (1 for an empty journal), even when that
    /// job has since been pruned.
    public func nextJobID() throws -> UInt64 {
        let largest = try read { db in try Self.largestJobID(db) }
        guard largest < UInt64.max else {
            throw JournalError(kind: .readFailed, path: path, reason: "every job id has been used")
        }
        return largest + 1
    }

    /// Records a new job. Its id must be new to the journal.
    public func insertJob(_ job: JournalJob) throws {
        try write { db in
            try Self.checkTotals(job.totals)
            try db.cachedStatement(sql: """
                INSERT INTO job (\(JournalSchema.jobColumns))
                VALUES (?, coalesce(?, x''), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    Int64(bitPattern: job.id), job.request, job.source, job.destination, job.state.rawValue,
                    job.submittedBy, job.createdAt.timeIntervalSinceReferenceDate,
                    job.finishedAt?.timeIntervalSinceReferenceDate,
                    job.totals.filesDone, job.totals.filesFailed, job.totals.filesSkipped,
                    Int64(bitPattern: job.totals.bytesIn), Int64(bitPattern: job.totals.bytesOut), job.message,
                    job.totals.filesPlanned, Int64(bitPattern: job.totals.bytesPlanned),
                ])
            if job.id > (try Self.largestJobID(db)) {
                try db.cachedStatement(sql: "UPDATE jobSequence SET largest = ? WHERE one = 1")
                    .execute(arguments: [Int64(bitPattern: job.id)])
            }
        }
    }

    /// Records a job's state, totals, end and message. The job must be in the journal.
    public func updateJob(_ id: UInt64, state: JournalJobState, totals: JournalTotals, finishedAt: Date?, message: String?) throws {
        try write { db in
            try Self.checkTotals(totals)
            try db.cachedStatement(sql: """
                UPDATE job SET state = ?, finishedAt = ?, filesDone = ?, filesFailed = ?, filesSkipped = ?,
                    bytesIn = ?, bytesOut = ?, message = ?, filesPlanned = ?, bytesPlanned = ?
                WHERE id = ?
                """).execute(arguments: [
                    state.rawValue, finishedAt?.timeIntervalSinceReferenceDate,
                    totals.filesDone, totals.filesFailed, totals.filesSkipped,
                    Int64(bitPattern: totals.bytesIn), Int64(bitPattern: totals.bytesOut), message,
                    totals.filesPlanned, Int64(bitPattern: totals.bytesPlanned),
                    Int64(bitPattern: id),
                ])
            guard db.changesCount == 1 else { throw JournalProblem(kind: .writeFailed, reason: "no job \(id)") }
        }
    }

    /// The job `id`, nil when the journal has none (never had it, or pruned it).
    public func job(_ id: UInt64) throws -> JournalJob? {
        try read { db in
            try Self.jobs(db, sql: "SELECT \(JournalSchema.jobColumns) FROM job WHERE id = ?", Int64(bitPattern: id)).first
        }
    }

    /// The jobs still running (to resume after a restart), oldest first.
    public func runningJobs() throws -> [JournalJob] {
        try read { db in
            // ORDER BY id < 0, id: the ids' order as UInt64s (ids above Int64.max are stored negative).
            try Self.jobs(db, sql: """
                SELECT \(JournalSchema.jobColumns) FROM job WHERE state = ? ORDER BY id < 0, id
                """, JournalJobState.running.rawValue)
        }
    }

    /// The newest `limit` jobs, whatever their state, newest (largest id) first.
    public func recentJobs(limit: Int) throws -> [JournalJob] {
        try read { db in
            try Self.jobs(db, sql: """
                SELECT \(JournalSchema.jobColumns) FROM job ORDER BY id < 0 DESC, id DESC LIMIT ?
                """, max(limit, 0))
        }
    }

    /// Deletes finished (not running) jobs beyond the newest `keepingNewest`, and finished jobs that ended before
    /// `olderThan` when given, with their published-file rows. Returns how many jobs were deleted.
    ///
    /// "The newest `keepingNewest`" counts every job, running ones included, by id: the history keeps at most
    /// that many jobs, plus any older job still running.
    public func prune(keepingNewest: Int, olderThan: Date?) throws -> Int {
        try write { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, state, finishedAt FROM job ORDER BY id < 0 DESC, id DESC
                """))
            var doomed: [Int64] = []
            for (rank, row) in rows.enumerated() {
                let stored = StoredRow(row, .job(nil))
                let id = try stored.int64(0, "id")
                let named = stored.renamed(.job(UInt64(bitPattern: id)))
                guard try named.state(1, "state") != .running else { continue }
                let finishedAt = try named.optionalDate(2, "finishedAt")
                let expired = olderThan.map { limit in finishedAt.map { $0 < limit } ?? false } ?? false
                if rank >= keepingNewest || expired { doomed.append(id) }
            }
            let deletePublished = try db.cachedStatement(sql: "DELETE FROM publishedGroup WHERE job = ?")
            let deleteJob = try db.cachedStatement(sql: "DELETE FROM job WHERE id = ?")
            for id in doomed {
                try deletePublished.execute(arguments: [id])
                try deleteJob.execute(arguments: [id])
            }
            return doomed.count
        }
    }

    /// The largest job id ever inserted, 0 for none.
    private static func largestJobID(_ db: Database) throws -> UInt64 {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT largest FROM jobSequence WHERE one = 1")) else {
            throw JournalProblem(kind: .corrupt, reason: "the job sequence row is missing")
        }
        return try StoredRow(row, .jobSequence).uint64(0, "largest")
    }

    /// The jobs `sql` selects (columns `JournalSchema.jobColumns`), checked.
    private static func jobs(_ db: Database, sql: String, _ argument: some DatabaseValueConvertible) throws -> [JournalJob] {
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: [argument])
        var jobs: [JournalJob] = []
        while let row = try cursor.next() {
            jobs.append(try job(from: row))
        }
        return jobs
    }

    /// A job row (columns `JournalSchema.jobColumns`), checked.
    private static func job(from row: Row) throws -> JournalJob {
        let unnamed = StoredRow(row, .job(nil))
        let id = try unnamed.uint64(0, "id")
        let stored = unnamed.renamed(.job(id))
        return JournalJob(
            id: id,
            request: try stored.blob(1, "request"),
            source: try stored.text(2, "source"),
            destination: try stored.text(3, "destination"),
            state: try stored.state(4, "state"),
            submittedBy: try stored.text(5, "submittedBy"),
            createdAt: try stored.date(6, "createdAt"),
            finishedAt: try stored.optionalDate(7, "finishedAt"),
            totals: JournalTotals(
                filesDone: try stored.count(8, "filesDone"),
                filesFailed: try stored.count(9, "filesFailed"),
                filesSkipped: try stored.count(10, "filesSkipped"),
                bytesIn: try stored.uint64(11, "bytesIn"),
                bytesOut: try stored.uint64(12, "bytesOut"),
                filesPlanned: try stored.count(14, "filesPlanned"),
                bytesPlanned: try stored.uint64(15, "bytesPlanned")
            ),
            message: try stored.optionalText(13, "message")
        )
    }

    /// Refuses totals the journal would later read back as damaged.
    private static func checkTotals(_ totals: JournalTotals) throws {
        guard totals.filesDone >= 0, totals.filesFailed >= 0, totals.filesSkipped >= 0, totals.filesPlanned >= 0 else {
            throw JournalProblem(kind: .writeFailed, reason: "negative file count in \(totals)")
        }
    }
}

import Foundation
import GRDB
import GRDBSQLite

extension Journal {
    /// Records a batch of published outputs in one transaction (all or nothing). Upserts by (job, path).
    /// Each file's job must be in the journal.
    public func recordPublished(_ files: [PublishedFile]) throws {
        guard !files.isEmpty else { return }
        try write { db in
            // An empty Data can bind as NULL (no bytes, no address): coalesce makes it the empty BLOB.
            let upsert = try db.cachedStatement(sql: """
                INSERT INTO published (\(JournalSchema.publishedColumns))
                VALUES (?, coalesce(?, x''), ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (job, path) DO UPDATE SET
                    sourceSize = excluded.sourceSize,
                    sourceModifiedSeconds = excluded.sourceModifiedSeconds,
                    sourceModifiedNanoseconds = excluded.sourceModifiedNanoseconds,
                    sourceDevice = excluded.sourceDevice,
                    sourceInode = excluded.sourceInode,
                    outputSize = excluded.outputSize,
                    outputInode = excluded.outputInode,
                    crc = excluded.crc
                """)
            // Bound with SQLite's own calls: GRDB's arguments box every value, which cost more
            // than the insert itself (profiled: a million files' rows, about 1.3 µs each).
            let statement = upsert.sqliteStatement
            for file in files {
                sqlite3_reset(statement)
                sqlite3_bind_int64(statement, 1, Int64(bitPattern: file.job))
                let bound = file.path.withUnsafeBytes { path in
                    path.isEmpty ? sqlite3_bind_zeroblob(statement, 2, 0)
                        : sqlite3_bind_blob(statement, 2, path.baseAddress, Int32(path.count), Self.transient)
                }
                guard bound == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: bound), message: "binding a path") }
                let values = [
                    Int64(bitPattern: file.sourceSize), file.sourceModifiedSeconds, file.sourceModifiedNanoseconds,
                    Int64(bitPattern: file.sourceDevice), Int64(bitPattern: file.sourceInode),
                    Int64(bitPattern: file.outputSize), Int64(bitPattern: file.outputInode), Int64(file.crc),
                ]
                for (offset, value) in values.enumerated() { sqlite3_bind_int64(statement, Int32(3 + offset), value) }
                let stepped = sqlite3_step(statement)
                guard stepped == SQLITE_DONE else {
                    let message = sqlite3_errmsg(db.sqliteConnection).map { String(cString: $0) }
                    sqlite3_reset(statement)
                    throw DatabaseError(resultCode: ResultCode(rawValue: stepped), message: message)
                }
            }
            sqlite3_reset(statement)
        }
    }

    /// SQLite copies a bound value it is given with this destructor before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Every published output of `job`, keyed by the file's relative path bytes.
    public func publishedFiles(of job: UInt64) throws -> [[UInt8]: PublishedFile] {
        try read { db in
            let cursor = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT \(JournalSchema.publishedColumns) FROM published WHERE job = ?"),
                arguments: [Int64(bitPattern: job)]
            )
            var files: [[UInt8]: PublishedFile] = [:]
            while let row = try cursor.next() {
                let file = try Self.publishedFile(from: row, job: job)
                files[file.path] = file
            }
            return files
        }
    }

    /// The published outputs of `job` among `paths` (relative path bytes), keyed by path: one read
    /// transaction, one primary-key lookup a path. What a resumed job's scan asks batch by batch, so
    /// its memory holds one batch's records, not the whole job's.
    public func publishedFiles(of job: UInt64, among paths: [[UInt8]]) throws -> [[UInt8]: PublishedFile] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in
            // An empty Data binds as NULL: coalesce makes it the empty BLOB it was recorded as.
            let lookup = try db.cachedStatement(
                sql: "SELECT \(JournalSchema.publishedColumns) FROM published WHERE job = ? AND path = coalesce(?, x'')")
            var files: [[UInt8]: PublishedFile] = [:]
            for path in paths {
                guard let row = try Row.fetchOne(lookup, arguments: [Int64(bitPattern: job), Data(path)]) else { continue }
                let file = try Self.publishedFile(from: row, job: job)
                files[file.path] = file
            }
            return files
        }
    }

    /// How many outputs of `job` the journal lists as published.
    public func publishedCount(of job: UInt64) throws -> Int {
        try read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM published WHERE job = ?"), arguments: [Int64(bitPattern: job)]) ?? 0
        }
    }

    /// A published row (columns `JournalSchema.publishedColumns`) of `job`, checked.
    private static func publishedFile(from row: Row, job: UInt64) throws -> PublishedFile {
        let stored = StoredRow(row, .published(job: job, path: nil))
        let path = [UInt8](try stored.blob(1, "path"))
        let named = stored.renamed(.published(job: job, path: path))
        let owner = try named.uint64(0, "job")
        guard owner == job else { throw named.corrupt("job is \(owner)") }
        return PublishedFile(
            job: job,
            path: path,
            sourceSize: try named.uint64(2, "sourceSize"),
            sourceModifiedSeconds: try named.int64(3, "sourceModifiedSeconds"),
            sourceModifiedNanoseconds: try named.int64(4, "sourceModifiedNanoseconds"),
            sourceDevice: try named.uint64(5, "sourceDevice"),
            sourceInode: try named.uint64(6, "sourceInode"),
            outputSize: try named.uint64(7, "outputSize"),
            outputInode: try named.uint64(8, "outputInode"),
            crc: try named.uint32(9, "crc")
        )
    }
}

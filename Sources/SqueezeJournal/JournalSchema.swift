import Foundation
import GRDB

/// The journal's tables, as schema migrations. A migration, once released, never changes: a later
/// schema is a new migration appended here ("v2", ...), so an older squeeze can tell a newer journal.
///
/// Values: UInt64s are stored as the Int64 with the same bit pattern (SQLite integers are signed),
/// paths and requests as BLOBs, dates as REAL seconds since Foundation's reference date
/// (2001-01-01 UTC), which gives a `Date` back exactly.
enum JournalSchema {
    /// The columns of `job`, in the order `Journal` reads them.
    static let jobColumns = """
        id, request, source, destination, state, submittedBy, createdAt, finishedAt, \
        filesDone, filesFailed, filesSkipped, bytesIn, bytesOut, message, filesPlanned, bytesPlanned
        """

    /// The columns of v1's `published` (a row per file, until v3), in the order migration v3 reads them.
    static let legacyPublishedColumns = """
        job, path, sourceSize, sourceModifiedSeconds, sourceModifiedNanoseconds, \
        sourceDevice, sourceInode, outputSize, outputInode, crc
        """

    /// Every migration, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE job (
                    id INTEGER PRIMARY KEY,
                    request BLOB NOT NULL,
                    source TEXT NOT NULL,
                    destination TEXT NOT NULL,
                    state TEXT NOT NULL,
                    submittedBy TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    finishedAt REAL,
                    filesDone INTEGER NOT NULL,
                    filesFailed INTEGER NOT NULL,
                    filesSkipped INTEGER NOT NULL,
                    bytesIn INTEGER NOT NULL,
                    bytesOut INTEGER NOT NULL,
                    message TEXT
                );
                CREATE TABLE published (
                    job INTEGER NOT NULL REFERENCES job(id),
                    path BLOB NOT NULL,
                    sourceSize INTEGER NOT NULL,
                    sourceModifiedSeconds INTEGER NOT NULL,
                    sourceModifiedNanoseconds INTEGER NOT NULL,
                    sourceDevice INTEGER NOT NULL,
                    sourceInode INTEGER NOT NULL,
                    outputSize INTEGER NOT NULL,
                    outputInode INTEGER NOT NULL,
                    crc INTEGER NOT NULL,
                    PRIMARY KEY (job, path)
                ) WITHOUT ROWID;
                -- The largest job id ever inserted (0 for none), so pruning the newest job does not
                -- hand its id out again.
                CREATE TABLE jobSequence (
                    one INTEGER PRIMARY KEY CHECK (one = 1),
                    largest INTEGER NOT NULL
                );
                INSERT INTO jobSequence (one, largest) VALUES (1, 0);
                """)
        }
        // The history shows how far an ended job got: files and bytes found, beside those done.
        // Rows from v1 get 0, read as "not recorded".
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE job ADD COLUMN filesPlanned INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE job ADD COLUMN bytesPlanned INTEGER NOT NULL DEFAULT 0;
                """)
        }
        // Published files are recorded a row per job and folder (`PublishedGroup`), not a row per
        // file. `sequence` orders rows by age; the index finds a folder's row holding a name.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: """
                CREATE TABLE publishedGroup (
                    sequence INTEGER PRIMARY KEY,
                    job INTEGER NOT NULL REFERENCES job(id),
                    directory BLOB NOT NULL,
                    firstName BLOB NOT NULL,
                    lastName BLOB NOT NULL,
                    count INTEGER NOT NULL,
                    files BLOB NOT NULL
                );
                CREATE INDEX publishedGroupByName ON publishedGroup (job, directory, firstName);
                """)
            try regroupPublished(db)
            try db.execute(sql: "DROP TABLE published")
        }
        return migrator
    }

    /// Moves v1's rows of published files into groups, `chunk` rows at a time (in path order, so
    /// a folder's groups come in name order and do not overlap).
    static func regroupPublished(_ db: Database, chunk: Int = 65_536) throws {
        var after: (job: Int64, path: Data)?
        // As everywhere in the journal, a path is bound through coalesce: an empty Data may bind
        // as NULL, and a comparison with NULL takes no row (a chunk may end on a job's empty path).
        while true {
            let rows = if let after {
                try Row.fetchAll(db, sql: """
                    SELECT \(legacyPublishedColumns) FROM published WHERE (job, path) > (?, coalesce(?, x''))
                    ORDER BY job, path LIMIT \(chunk)
                    """, arguments: [after.job, after.path])
            } else {
                try Row.fetchAll(db, sql: "SELECT \(legacyPublishedColumns) FROM published ORDER BY job, path LIMIT \(chunk)")
            }
            guard let last = rows.last else { return }
            var files: [PublishedFile] = []
            for row in rows {
                let job = try StoredRow(row, .published(job: 0, path: nil)).uint64(0, "job")
                files.append(try Journal.legacyPublishedFile(from: row, job: job))
            }
            for group in PublishedGroup.grouping(files) { try group.record(in: db) }
            let stored = StoredRow(last, .published(job: 0, path: nil))
            after = (try stored.int64(0, "job"), try stored.blob(1, "path"))
        }
    }
}

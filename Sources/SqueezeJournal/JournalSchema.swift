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

    /// The columns of `published`, in the order `Journal` reads them.
    static let publishedColumns = """
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
        return migrator
    }
}

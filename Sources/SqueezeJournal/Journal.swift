import Foundation
import GRDB
import NIOConcurrencyHelpers

/// The coordinator's durable job journal: each job (its request, state and totals) and every output it
/// published, in an SQLite database (WAL mode) under an exclusive `flock`, so a restarted coordinator
/// (or `squeeze compress --resume`) can resume running jobs and keep the outputs already published.
///
/// Only storage: no sockets, no knowledge of the coordinator. Calls may come from several threads at
/// once; one serial GRDB `DatabaseQueue` runs them one at a time, each write in one transaction.
public final class Journal: Sendable {
    /// File name of the journal inside `squeeze coordinator --state DIR`.
    public static let stateFileName = "journal.sqlite"
    /// File name of the journal `squeeze compress` keeps inside its destination while a job runs.
    public static let destinationFileName = ".squeeze-journal.sqlite"

    /// The database file's path.
    public let path: String

    /// The open database and its lock; nil once closed.
    private let opened: NIOLockedValueBox<Opened?>

    private struct Opened: Sendable {
        var database: DatabaseQueue
        var lock: JournalLock
    }

    /// Opens the journal at `path`, creating it (and not its folder) when absent; takes an exclusive, non-blocking
    /// `flock` on the database file for as long as this object is open, so a second process (or a second Journal
    /// in the same process) pointed at the same file is refused with `JournalError.locked`. WAL mode. Runs the schema
    /// migrations (GRDB `DatabaseMigrator`, first migration id "v1"). Refuses a journal written by a newer version
    /// (it has migrations this build does not know: `migrator.hasBeenSuperseded`) with `.newerVersion`, a file that is
    /// not a SQLite database or is damaged with `.corrupt`; never deletes, truncates or recreates an existing file.
    /// `maxPageCount` is a test hook (PRAGMA max_page_count) to simulate a full disk.
    ///
    /// The lock is taken before SQLite opens the file, so a refused opener never touches the database; a refused
    /// journal is not written to (WAL mode and the migrations come after the checks).
    public init(path: String, maxPageCount: Int? = nil) throws {
        self.path = path
        let lock: JournalLock
        do {
            lock = try JournalLock(path: path)
        } catch let error as JournalLockError {
            throw JournalError(kind: error.isContended ? .locked : .cannotOpen, path: path, reason: error.reason)
        } catch {
            throw JournalError(kind: .cannotOpen, path: path, reason: "\(error)")
        }
        do {
            let database = try Self.openDatabase(path: path, maxPageCount: maxPageCount)
            opened = NIOLockedValueBox(Opened(database: database, lock: lock))
        } catch {
            // SQLite has closed the file by now: releasing the lock cannot drop its fcntl locks.
            lock.release()
            throw Self.journalError(error, .cannotOpen, path: path)
        }
    }

    /// Releases the lock and closes the database. Idempotent; also done by deinit.
    public func close() {
        if let lock = closeDatabase() { lock.release() }
    }

    /// Removes the database and its -wal and -shm files (after close). For `compress`, once its job completed.
    /// The files are removed while the lock is still held, so no other process starts using them meanwhile;
    /// files already gone are no error.
    public func closeAndRemove() throws {
        let lock = closeDatabase()
        defer { lock?.release() }
        try Self.unlinkFiles(of: path)
    }

    /// Removes the journal at `path` without opening it (whatever it holds: a newer version's, a damaged one),
    /// for `compress --force`, which starts over. Refused with `.locked` while another process has it open.
    public static func remove(at path: String) throws {
        let lock: JournalLock
        do {
            lock = try JournalLock(path: path)
        } catch let error as JournalLockError {
            throw JournalError(kind: error.isContended ? .locked : .cannotOpen, path: path, reason: error.reason)
        }
        defer { lock.release() }
        try unlinkFiles(of: path)
    }

    /// Unlinks the database and its -wal and -shm files; files already gone are no error.
    private static func unlinkFiles(of path: String) throws {
        for file in [path, path + "-wal", path + "-shm"] where unlink(file) != 0 && errno != ENOENT {
            let reason = "unlink \(file): \(String(cString: strerror(errno)))"
            throw JournalError(kind: .writeFailed, path: path, reason: reason)
        }
    }

    deinit {
        close()
    }

    /// Closes the database (SQLite checkpoints and removes the -wal and -shm files); returns the lock
    /// still held, nil when the journal was already closed.
    private func closeDatabase() -> JournalLock? {
        guard let opened = opened.withLockedValue({ opened in
            defer { opened = nil }
            return opened
        }) else { return nil }
        // Waits for a call under way on another thread (the queue is serial); calls after it find the
        // journal closed. A failed close leaves the connection to be closed when the queue is freed.
        try? opened.database.close()
        return opened.lock
    }

    /// Runs `updates` in one transaction: all of it is recorded, or nothing.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try access(.writeFailed) { try $0.write(updates) }
    }

    /// Runs `value` in one read transaction, so what it reads is consistent.
    func read<T>(_ value: (Database) throws -> T) throws -> T {
        try access(.readFailed) { try $0.read(value) }
    }

    private func access<T>(_ kind: JournalError.Kind, _ body: (DatabaseQueue) throws -> T) throws -> T {
        guard let database = opened.withLockedValue({ $0?.database }) else {
            throw JournalError(kind: kind, path: path, reason: "the journal is closed")
        }
        do {
            return try body(database)
        } catch {
            throw Self.journalError(error, kind, path: path)
        }
    }

    /// Opens SQLite on the locked file, refuses a newer or damaged journal, then sets WAL mode and migrates.
    private static func openDatabase(path: String, maxPageCount: Int?) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "squeeze.journal"
        // GRDB reads sqlite_master here, so a file that is not a database fails now (SQLITE_NOTADB), and
        // one shorter than its header says (a truncated journal) too (SQLITE_CORRUPT).
        let database = try DatabaseQueue(path: path, configuration: configuration)
        do {
            // What `DatabaseMigrator.hasBeenSuperseded` tests, keeping the unknown ids for the message.
            let unknown = try database.read { db in
                let migrator = JournalSchema.migrator
                return try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
            }
            guard unknown.isEmpty else {
                let names = unknown.sorted().joined(separator: ", ")
                throw JournalProblem(kind: .newerVersion, reason: "unknown schema migrations: \(names)")
            }
            try database.writeWithoutTransaction { db in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                guard mode == "wal" else {
                    throw JournalProblem(kind: .cannotOpen, reason: "SQLite kept journal mode \(mode ?? "unknown") instead of WAL")
                }
                // Every commit is synced: outputs are renamed into place after their batch is recorded, so
                // the record must be as durable as the output, or a power cut could leave a published file the
                // journal does not know (a resume would then take it for someone else's). Measured: 8.7 us a
                // published file in batches of 64, against 6.3 with NORMAL.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                // The WAL file shrinks back to at most this after a checkpoint.
                try db.execute(sql: "PRAGMA journal_size_limit = \(4 << 20)")
                if let maxPageCount {
                    try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)")
                }
            }
            try JournalSchema.migrator.migrate(database)
            return database
        } catch {
            try? database.close()
            throw error
        }
    }

    /// The `JournalError` for an error thrown inside a database access of `kind`: SQLite's corruption codes
    /// become `.corrupt` whatever the access, a `JournalProblem` keeps its kind, a `JournalError` passes.
    private static func journalError(_ error: any Error, _ kind: JournalError.Kind, path: String) -> JournalError {
        switch error {
        case let error as JournalError:
            return error
        case let problem as JournalProblem:
            return JournalError(kind: problem.kind, path: path, reason: problem.reason)
        case let error as DatabaseError:
            let message = error.message ?? "\(error.resultCode)"
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return JournalError(kind: .corrupt, path: path, reason: "SQLite: \(message)")
            default:
                return JournalError(kind: kind, path: path, reason: message)
            }
        default:
            return JournalError(kind: kind, path: path, reason: "\(error)")
        }
    }
}

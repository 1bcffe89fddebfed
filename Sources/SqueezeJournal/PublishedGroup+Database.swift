import Foundation
import GRDB

// Paths and names are bound as `coalesce(?, x'')`: an empty Data binds as NULL, and the root's
// folder and an empty name are the empty BLOB. SQLite compares BLOBs as memcmp, then by length:
// the order of `compareBytes`.
extension PublishedGroup {
    /// Most records a row holds; a longer group takes several rows.
    static let rowLimit = 4096

    /// Writes the group, in rows of at most `rowLimit` records. A path recorded before keeps its
    /// older record in an older row: reads take the newest (rows are read in `sequence` order),
    /// so a record never has to be found and taken out of a row (a redone output is rare; a
    /// search on every write, when a folder's rows interleave, was not).
    func record(in db: Database) throws {
        var start = files.startIndex
        while start < files.endIndex {
            let end = min(start + Self.rowLimit, files.endIndex)
            let part = PublishedGroup(job: job, directory: directory, files: Array(files[start..<end]))
            guard let (first, last) = part.range else { break }
            try db.cachedStatement(sql: """
                INSERT INTO publishedGroup (job, directory, firstName, lastName, count, files)
                VALUES (?, coalesce(?, x''), coalesce(?, x''), coalesce(?, x''), ?, ?)
                """).execute(arguments: [Int64(bitPattern: job), Data(directory), Data(first), Data(last),
                                         part.files.count, Data(part.packed())])
            start = end
        }
    }

    /// Every record of `job`, by path.
    static func all(of job: UInt64, in db: Database) throws -> [[UInt8]: PublishedFile] {
        let cursor = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT directory, count, files FROM publishedGroup WHERE job = ? ORDER BY sequence"),
            arguments: [Int64(bitPattern: job)])
        var files: [[UInt8]: PublishedFile] = [:]
        while let row = try cursor.next() {
            for file in try unpack(row, job: job) { files[file.path] = file }
        }
        return files
    }

    /// The records of `job` among `paths`. Per folder asked, one indexed query for the rows whose
    /// name ranges meet the span of the names asked there, read oldest first so a newer record
    /// of a path replaces an older one: each row is read once, and a folder whose rows interleave
    /// (outputs recorded in the order they finished) costs no search per path. A resumed job
    /// asks a batch of a folder's names at a time, so what is read is about that batch.
    static func records(of job: UInt64, among paths: [[UInt8]], in db: Database) throws -> [[UInt8]: PublishedFile] {
        var spans: [[UInt8]: (first: [UInt8], last: [UInt8])] = [:]
        for path in paths {
            let (directory, name) = split(path)
            if let span = spans[directory] {
                spans[directory] = (compareBytes(name[...], span.first[...]) < 0 ? name : span.first,
                                    compareBytes(name[...], span.last[...]) > 0 ? name : span.last)
            } else {
                spans[directory] = (name, name)
            }
        }
        let meeting = try db.cachedStatement(sql: """
            SELECT directory, count, files FROM publishedGroup
            WHERE job = ? AND directory = coalesce(?, x'') AND firstName <= coalesce(?, x'') AND lastName >= coalesce(?, x'')
            ORDER BY sequence
            """)
        var recorded: [[UInt8]: PublishedFile] = [:]
        for (directory, span) in spans {
            let cursor = try Row.fetchCursor(meeting, arguments: [Int64(bitPattern: job), Data(directory), Data(span.last), Data(span.first)])
            while let row = try cursor.next() {
                for file in try unpack(row, job: job) { recorded[file.path] = file }
            }
        }
        var files: [[UInt8]: PublishedFile] = [:]
        for path in paths {
            if let file = recorded[path] { files[path] = file }
        }
        return files
    }

    /// How many paths of `job` have a record: the rows' counts when no two rows of a folder
    /// have name ranges that meet (no path can be in two), else the records read, each path once.
    /// Whether two meet is one pass over the rows in folder and first-name order (the index's),
    /// not a comparison of every pair: a folder can have thousands of rows.
    static func count(of job: UInt64, in db: Database) throws -> Int {
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT directory, firstName, lastName, count FROM publishedGroup WHERE job = ? ORDER BY directory, firstName
            """), arguments: [Int64(bitPattern: job)])
        var total = 0
        // The folder read last, and the largest last name of its rows so far.
        var reach: (directory: [UInt8], last: [UInt8])?
        while let row = try cursor.next() {
            let stored = StoredRow(row, .publishedGroup(job: job, directory: []))
            let directory = [UInt8](try stored.blob(0, "directory"))
            let named = stored.renamed(.publishedGroup(job: job, directory: directory))
            let first = [UInt8](try named.blob(1, "firstName"))
            let last = [UInt8](try named.blob(2, "lastName"))
            if let farthest = reach, farthest.directory == directory {
                if compareBytes(first[...], farthest.last[...]) <= 0 { return try all(of: job, in: db).count }
                if compareBytes(last[...], farthest.last[...]) > 0 { reach?.last = last }
            } else {
                reach = (directory, last)
            }
            total += try named.count(3, "count")
        }
        return total
    }

    /// The records of a row of columns directory, count, files.
    private static func unpack(_ row: Row, job: UInt64) throws -> [PublishedFile] {
        let stored = StoredRow(row, .publishedGroup(job: job, directory: []))
        let directory = [UInt8](try stored.blob(0, "directory"))
        let named = stored.renamed(.publishedGroup(job: job, directory: directory))
        return try unpack([UInt8](try named.blob(2, "files")), count: try named.count(1, "count"), job: job, directory: directory, row: named)
    }
}

import Foundation
import GRDB

extension Journal {
    /// Records a batch of published outputs in one transaction (all or nothing). A path recorded
    /// again for its job replaces its record. Each file's job must be in the journal. Stored a row
    /// per job and folder (`PublishedGroup`), not a row per file.
    public func recordPublished(_ files: [PublishedFile]) throws {
        guard !files.isEmpty else { return }
        let groups = PublishedGroup.grouping(files)
        try write { db in
            for group in groups { try group.record(in: db) }
        }
    }

    /// Every published output of `job`, keyed by the file's relative path bytes.
    public func publishedFiles(of job: UInt64) throws -> [[UInt8]: PublishedFile] {
        try read { db in try PublishedGroup.all(of: job, in: db) }
    }

    /// The published outputs of `job` among `paths` (relative path bytes), keyed by path: one read
    /// transaction, one indexed query per folder asked (the rows that meet the names asked
    /// there). What a resumed job's scan asks batch by batch, so its memory holds about one
    /// batch's records, not the whole job's.
    public func publishedFiles(of job: UInt64, among paths: [[UInt8]]) throws -> [[UInt8]: PublishedFile] {
        guard !paths.isEmpty else { return [:] }
        return try read { db in try PublishedGroup.records(of: job, among: paths, in: db) }
    }

    /// How many outputs of `job` the journal lists as published.
    public func publishedCount(of job: UInt64) throws -> Int {
        try read { db in try PublishedGroup.count(of: job, in: db) }
    }

    /// A row of the first schemas' table of a record per file (columns
    /// `JournalSchema.legacyPublishedColumns`) of `job`, checked: what migration v3 regroups.
    static func legacyPublishedFile(from row: Row, job: UInt64) throws -> PublishedFile {
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

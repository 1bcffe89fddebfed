import SqueezeProtocol

/// Samples of `batch` and `verifyBatch`.
extension Fixtures {
    static let batchFiles = [
        BatchFile(relativePath: Array("a.txt".utf8), size: 0, modifiedSeconds: -5, modifiedNanoseconds: 0, inode: 1, permissions: 0o644),
        BatchFile(relativePath: Array("deep/er/b ü.bin".utf8), size: 1 << 20, modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 999_999_999,
                  inode: UInt64.max, permissions: 0o7777),
        BatchFile(relativePath: [0xFF, 0xFE, UInt8(ascii: "/"), 0x80], size: 3, modifiedSeconds: Int64.min, modifiedNanoseconds: 1, inode: 0,
                  permissions: 0),
    ]
    static let batch = BatchAssignment(
        jobID: 7, itemID: 42, attempt: 9, setting: setting(.libdeflate, 6), headerLevel: 6, workspace: Array("/data/out/.squeeze-tmp-job-1".utf8),
        root: Array("/data/src".utf8), syncPieces: true, files: batchFiles)
    static var viewedBatch: BatchAssignment {
        var batch = BatchAssignment(
            jobID: UInt64.max, itemID: 0, attempt: UInt64.max, setting: setting(.isal, 1), headerLevel: 1, workspace: Array("/w".utf8),
            root: Array("/".utf8), syncPieces: false, files: [batchFiles[1]])
        batch.view = SharedView(inodes: false, nanoseconds: false)
        return batch
    }
    static let emptyBatch = BatchAssignment(
        jobID: 1, itemID: 2, attempt: 3, setting: setting(.zlib, 0), headerLevel: 0, workspace: Array("/w".utf8), root: Array("/r".utf8),
        syncPieces: false, files: [])
    static let batchCheck = BatchCheck(
        checkID: 11, jobID: 7, itemID: 42, attempt: 9, headerLevel: 9, workspace: Array("/data/out/.squeeze-tmp-job-1".utf8),
        root: Array("/data/src".utf8), files: batchFiles, pieceLengths: [20, 1 << 20, 23])
    /// A scan's batch check carrying that scan's listing check.
    static var batchCheckWithListing: BatchCheck {
        var check = batchCheck
        check.listing = ListingCheck(checkID: 12, key0: 0x0123_4567_89AB_CDEF, key1: UInt64.max, scan: scan)
        return check
    }
    static var viewedBatchCheck: BatchCheck {
        var check = BatchCheck(
            checkID: 0, jobID: 0, itemID: 0, attempt: 0, headerLevel: 6, workspace: Array("/w".utf8), root: Array("/r".utf8), files: [], pieceLengths: [])
        check.view = SharedView(inodes: true, nanoseconds: false)
        return check
    }
}

import SqueezeProtocol

/// Samples of `scan` and `scanned`.
extension Fixtures {
    static let scan = ScanAssignment(
        jobID: 7, itemID: 42, attempt: 9, setting: setting(.libdeflate, 6), headerLevel: 6, syncPieces: true, smallFileBytes: 1 << 20,
        maxEntries: 4096, maxSmallBytes: 4 << 20, workspace: Array("/data/out/.squeeze-tmp-job-1".utf8), root: Array("/data/src".utf8),
        destination: Array("/data/out".utf8), directory: Array("deep/er ü".utf8), after: [0xFF, 0x80], exclude: Array("deep/er ü/out".utf8))
    static var rootScan: ScanAssignment {
        var scan = ScanAssignment(
            jobID: UInt64.max, itemID: 0, attempt: UInt64.max, setting: setting(.isal, 1), headerLevel: 1, syncPieces: false,
            smallFileBytes: 0, maxEntries: 1, maxSmallBytes: 1, workspace: Array("/w".utf8), root: Array("/".utf8),
            destination: Array("/o".utf8), directory: [], after: [], exclude: [])
        scan.view = SharedView(inodes: false, nanoseconds: false)
        return scan
    }
    static let scannedFiles = [
        BatchFile(relativePath: Array("a.txt".utf8), size: 0, modifiedSeconds: -5, modifiedNanoseconds: 0, inode: 1, permissions: 0o644),
        BatchFile(relativePath: [0xFF, 0xFE], size: 3, modifiedSeconds: Int64.min, modifiedNanoseconds: 999_999_999, inode: UInt64.max,
                  permissions: 0o7777),
    ]
    static let scanned = ScanReport(
        jobID: 7, itemID: 42, attempt: 9, outcome: .listed, sections: [
            ScanSection(
                directory: Array("deep/er ü".utf8), resumeAfter: Array("z".utf8), smallFiles: [scannedFiles[0]],
                largeFiles: [BatchFile(relativePath: Array("big.iso".utf8), size: UInt64.max, modifiedSeconds: 0, modifiedNanoseconds: 1, inode: 2, permissions: 0)],
                subdirectories: [Array("b".utf8), Array("c d".utf8)],
                notes: [ScanEntryNote(name: Array("fifo".utf8), failed: false, reason: "FIFO (not opened)"),
                        ScanEntryNote(name: Array("gone".utf8), failed: true, reason: "stat: No such file or directory")]),
            ScanSection(directory: Array("deep/er ü/b".utf8), smallFiles: [scannedFiles[1]]),
        ],
        result: RefResult(jobID: 7, itemID: 42, attempt: 9, pieces: [
            PieceReport(crc: 0, rawLength: 0, pieceLength: 20), PieceReport(failure: "/data/src/x: file grew while it was read (3 -> 4 bytes)"),
        ]))
    static let scannedEmpty = ScanReport(
        jobID: 1, itemID: 2, attempt: 3, outcome: .listed, sections: [ScanSection(directory: [], subdirectories: [Array("only".utf8)])])
    static let scannedUnreadable = ScanReport(jobID: 1, itemID: 2, attempt: 3, outcome: .unreadable, reason: "open: Permission denied")
    static let scannedElsewhere = ScanReport(jobID: 1, itemID: 2, attempt: 3, outcome: .otherFileSystem, reason: "another file system")
}

import SqueezeIO

extension ScanAssignment {
    /// Blocking: what the slice holds, read as a `scan` reads it (`DirectorySlice.walk` with the
    /// assignment's limits, only below the root's file system): the report (without pieces)
    /// and the slices it was made from. A directory on another file system, or one that cannot
    /// be read, is a report of that outcome and no slices. The scanner and a worker checking
    /// its listing both call this, so an unchanged tree lists alike on both.
    public func listing() -> (report: ScanReport, slices: [DirectorySlice]) {
        var report = ScanReport(jobID: jobID, itemID: itemID, attempt: attempt, outcome: .listed)
        let slices: [DirectorySlice]
        do {
            slices = try DirectorySlice.walk(
                root: BytePath(bytes: root), directory: BytePath(bytes: directory), after: after.isEmpty ? nil : after,
                then: more.map { BytePath(bytes: $0) }, exclude: exclude.isEmpty ? nil : BytePath(bytes: exclude),
                limits: DirectorySlice.Limits(smallFileBytes: smallFileBytes, maxEntries: maxEntries, maxSmallBytes: maxSmallBytes),
                maxDirectories: ProtocolLimits.maxScanSections, sameDeviceAsRoot: true)
        } catch {
            switch error {
            case .otherFileSystem:
                report.outcome = .otherFileSystem
                report.reason = "another file system than the job's root"
            case .unreadable(let reason):
                report.outcome = .unreadable
                report.reason = reason
            }
            return (report, [])
        }
        report.sections = slices.map { slice in
            ScanSection(
                directory: slice.directory.bytes, resumeAfter: slice.resumeAfter ?? [], smallFiles: slice.smallFiles.map(\.entry),
                largeFiles: slice.largeFiles.map(\.entry), subdirectories: slice.subdirectories.map(\.lastComponent),
                notes: slice.skipped.map { ScanEntryNote(name: $0.relativePath.lastComponent, failed: false, reason: $0.reason) }
                    + slice.failures.map { ScanEntryNote(name: $0.relativePath.lastComponent, failed: true, reason: $0.reason) })
        }
        return (report, slices)
    }
}

extension ScannedFile {
    /// The file as a `scanned` names it: by its name in its directory.
    public var entry: BatchFile {
        BatchFile(
            relativePath: relativePath.lastComponent, size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
            modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode, permissions: stamp.permissions)
    }
}

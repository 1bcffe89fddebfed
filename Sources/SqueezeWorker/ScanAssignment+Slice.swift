import Glibc
import SqueezeIO
import SqueezeProtocol

extension ScanAssignment {
    /// Blocking: reads the slice and the subdirectories it goes on into (`DirectorySlice.walk`)
    /// and makes each one's output folder when it has files; returns the report (without
    /// pieces) and the batch of its small files. A directory on another file system, or one
    /// that cannot be read, is answered with that outcome.
    func list() -> (report: ScanReport, batch: BatchAssignment?) {
        let root = BytePath(bytes: root)
        var report = ScanReport(jobID: jobID, itemID: itemID, attempt: attempt, outcome: .listed)
        let slices: [DirectorySlice]
        do {
            slices = try DirectorySlice.walk(
                root: root, directory: BytePath(bytes: directory), after: after.isEmpty ? nil : after,
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
            return (report, nil)
        }
        var files: [BatchFile] = []
        for slice in slices {
            report.sections.append(ScanSection(
                directory: slice.directory.bytes, resumeAfter: slice.resumeAfter ?? [], smallFiles: slice.smallFiles.map(\.entry),
                largeFiles: slice.largeFiles.map(\.entry), subdirectories: slice.subdirectories.map(\.lastComponent),
                notes: slice.skipped.map { ScanEntryNote(name: $0.relativePath.lastComponent, failed: false, reason: $0.reason) }
                    + slice.failures.map { ScanEntryNote(name: $0.relativePath.lastComponent, failed: true, reason: $0.reason) }))
            guard !slice.smallFiles.isEmpty || !slice.largeFiles.isEmpty else { continue }
            // The outputs go to the same relative folder below the destination; the publish
            // that renames them into place refuses what exists unless the job replaces it.
            _ = try? Directories.create(BytePath(bytes: destination).appending(slice.directory))
            for file in slice.smallFiles {
                var entry = file.entry
                entry.relativePath = file.relativePath.bytes
                files.append(entry)
            }
        }
        guard !files.isEmpty else { return (report, nil) }
        var batch = BatchAssignment(
            jobID: jobID, itemID: itemID, attempt: attempt, setting: setting, headerLevel: headerLevel, workspace: workspace,
            root: root.bytes, syncPieces: syncPieces, files: files)
        batch.view = view
        return (report, batch)
    }
}

extension ScannedFile {
    /// The file as a `scanned` names it: by its name in its directory.
    var entry: BatchFile {
        BatchFile(
            relativePath: relativePath.lastComponent, size: stamp.size, modifiedSeconds: stamp.modifiedSeconds,
            modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode, permissions: stamp.permissions)
    }
}

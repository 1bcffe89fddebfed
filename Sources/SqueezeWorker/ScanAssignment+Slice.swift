import Glibc
import SqueezeIO
import SqueezeProtocol

extension ScanAssignment {
    /// Blocking: lists the slice and makes its directory's output folder. A directory on
    /// another file system, or one that cannot be read, is answered with that outcome.
    func list() -> (report: ScanReport, batch: BatchAssignment?) {
        let root = BytePath(bytes: root)
        let directory = BytePath(bytes: directory)
        var report = ScanReport(jobID: jobID, itemID: itemID, attempt: attempt, outcome: .listed)
        let slice: DirectorySlice
        do {
            slice = try DirectorySlice.read(
                root: root, directory: directory, after: after.isEmpty ? nil : after, exclude: exclude.isEmpty ? nil : exclude,
                limits: DirectorySlice.Limits(smallFileBytes: smallFileBytes, maxEntries: maxEntries, maxSmallBytes: maxSmallBytes),
                sameDeviceAsRoot: true)
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
        report.resumeAfter = slice.resumeAfter ?? []
        report.smallFiles = slice.smallFiles.map(\.entry)
        report.largeFiles = slice.largeFiles.map(\.entry)
        report.subdirectories = slice.subdirectories.map(\.lastComponent)
        report.notes = slice.skipped.map { ScanEntryNote(name: $0.relativePath.lastComponent, failed: false, reason: $0.reason) }
            + slice.failures.map { ScanEntryNote(name: $0.relativePath.lastComponent, failed: true, reason: $0.reason) }
        guard !slice.smallFiles.isEmpty || !slice.largeFiles.isEmpty else { return (report, nil) }
        // The outputs go to the same relative folder below the destination; the publish
        // that renames them into place refuses what exists unless the job replaces it.
        _ = try? Directories.create(BytePath(bytes: destination).appending(directory))
        guard !slice.smallFiles.isEmpty else { return (report, nil) }
        var batch = BatchAssignment(
            jobID: jobID, itemID: itemID, attempt: attempt, setting: setting, headerLevel: headerLevel, workspace: workspace,
            root: root.bytes, syncPieces: syncPieces, files: slice.smallFiles.map { file in
                var entry = file.entry
                entry.relativePath = file.relativePath.bytes
                return entry
            })
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

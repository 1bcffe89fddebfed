import SqueezeIO
import SqueezeProtocol

extension ScanAssignment {
    /// Blocking: reads the slice and the subdirectories it goes on into (`listing()`) and
    /// makes each one's output folder when it has files; returns the report (without pieces)
    /// and the batch of its small files. Files named `omitted` are left out of both (a test's
    /// lying scanner, `WorkerConfiguration.scanOmissionForTesting`).
    func list(omitting omitted: [UInt8]? = nil) -> (report: ScanReport, batch: BatchAssignment?) {
        var (report, slices) = listing()
        if let omitted {
            for index in report.sections.indices {
                report.sections[index].smallFiles.removeAll { $0.relativePath == omitted }
                report.sections[index].largeFiles.removeAll { $0.relativePath == omitted }
            }
            for index in slices.indices { slices[index].smallFiles.removeAll { $0.relativePath.lastComponent == omitted } }
        }
        var files: [BatchFile] = []
        for slice in slices where !slice.smallFiles.isEmpty || !slice.largeFiles.isEmpty {
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
            root: root, syncPieces: syncPieces, files: files)
        batch.view = view
        batch.memberBlocks = memberBlocks
        return (report, batch)
    }
}

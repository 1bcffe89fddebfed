import SqueezeGzip
import SqueezeZMQ

/// The binary tables of `scan` and `scanned` (docs/protocol.md, "Scans").
extension WireCodec {
    static func encodeScan(_ scan: ScanAssignment) -> [UInt8] {
        var writer = ByteWriter(capacity: 80 + scan.workspace.count + scan.root.count + scan.destination.count + scan.directory.count + 2 * 255)
        writer.write(scan.jobID)
        writer.write(scan.itemID)
        writer.write(scan.attempt)
        writer.write(scan.setting.engine.wireValue)
        writer.write(UInt8(clamping: scan.setting.level))
        writer.write(UInt8(clamping: scan.headerLevel))
        writer.write(UInt8(scan.syncPieces ? 1 : 0) | scan.view.flagBits)
        writer.write(scan.smallFileBytes)
        writer.write(UInt32(clamping: scan.maxEntries))
        writer.write(scan.maxSmallBytes)
        writeBytes(scan.workspace, to: &writer)
        writeBytes(scan.root, to: &writer)
        writeBytes(scan.destination, to: &writer)
        writeBytes(scan.directory, to: &writer)
        writeBytes(scan.after, to: &writer)
        writeBytes(scan.exclude, to: &writer)
        writer.write(UInt32(scan.more.count))
        for directory in scan.more { writeBytes(directory, to: &writer) }
        writeMemberBlocks(scan.memberBlocks, to: &writer)
        return writer.bytes
    }

    static func scan(_ parts: [ZMQFrame]) throws(ProtocolError) -> ScanAssignment {
        guard parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let setting = try setting(&reader)
        let headerLevel = Int(try reader.read(UInt8.self, "header level"))
        guard headerLevel <= 9 else { throw .malformed("header level \(headerLevel)") }
        let flags = try reader.read(UInt8.self, "flags")
        guard flags <= 7 else { throw .malformed("flags \(flags)") }
        let smallFileBytes = try reader.read(UInt64.self, "small-file bytes")
        guard smallFileBytes <= UInt64(ProtocolLimits.maxBlockSize) else {
            throw .oversized("small file", size: Int(clamping: smallFileBytes), limit: ProtocolLimits.maxBlockSize)
        }
        let entries = Int(try reader.read(UInt32.self, "entries"))
        guard (1...ProtocolLimits.maxBlocksPerItem).contains(entries) else { throw .tooMany("entries", count: entries, limit: ProtocolLimits.maxBlocksPerItem) }
        let smallBytes = try reader.read(UInt64.self, "small bytes")
        guard (1...UInt64(ProtocolLimits.maxItemBytes)).contains(smallBytes) else {
            throw .oversized("slice", size: Int(clamping: smallBytes), limit: ProtocolLimits.maxItemBytes)
        }
        let workspace = try path(&reader, "workspace")
        let root = try path(&reader, "root")
        let destination = try path(&reader, "destination")
        let directory = try readBytes(&reader, limit: ProtocolLimits.maxPathBytes, "directory")
        guard directory.isEmpty || BatchFile.isRelativePath(directory) else { throw .malformed("directory is not a relative path inside the root") }
        let after = try readBytes(&reader, limit: ProtocolLimits.maxNameBytes, "after")
        guard after.isEmpty || ScanReport.isEntryName(after) else { throw .malformed("after is not a name") }
        let exclude = try readBytes(&reader, limit: ProtocolLimits.maxPathBytes, "exclude")
        guard exclude.isEmpty || BatchFile.isRelativePath(exclude) else { throw .malformed("exclude is not a relative path inside the root") }
        let moreCount = Int(try reader.read(UInt32.self, "more count"))
        guard moreCount < ProtocolLimits.maxScanSections else { throw .tooMany("more count", count: moreCount, limit: ProtocolLimits.maxScanSections - 1) }
        var more: [[UInt8]] = []
        for _ in 0..<moreCount {
            let path = try readBytes(&reader, limit: ProtocolLimits.maxPathBytes, "more directory")
            guard BatchFile.isRelativePath(path) else { throw .malformed("more directory is not a relative path inside the root") }
            more.append(path)
        }
        let blocks = try memberBlocks(&reader, engine: setting.engine)
        try reader.expectEnd("scan table")
        var scan = ScanAssignment(
            jobID: job, itemID: item, attempt: attempt, setting: setting, headerLevel: headerLevel, syncPieces: flags & 1 != 0,
            smallFileBytes: smallFileBytes, maxEntries: entries, maxSmallBytes: smallBytes, workspace: workspace, root: root,
            destination: destination, directory: directory, after: after, exclude: exclude)
        scan.view = SharedView(flagBits: flags)
        scan.more = more
        scan.memberBlocks = blocks
        return scan
    }

    static func encodeScanned(_ report: ScanReport) -> [UInt8] {
        var capacity = 64 + report.reason.utf8.count
        for section in report.sections {
            capacity += 32 + section.directory.count + section.resumeAfter.count
                + (section.smallFiles + section.largeFiles).reduce(0) { $0 + 40 + $1.relativePath.count }
                + section.subdirectories.reduce(0) { $0 + 4 + $1.count } + section.notes.reduce(0) { $0 + 9 + $1.name.count + $1.reason.utf8.count }
        }
        var writer = ByteWriter(capacity: capacity)
        writer.write(report.jobID)
        writer.write(report.itemID)
        writer.write(report.attempt)
        writer.write(report.outcome.rawValue)
        writeBytes(Array(report.reason.utf8.prefix(maxFailureBytes)), to: &writer)
        writer.write(UInt32(report.sections.count))
        for section in report.sections {
            writeBytes(section.directory, to: &writer)
            writeBytes(section.resumeAfter, to: &writer)
            writeFiles(section.smallFiles, to: &writer)
            writeFiles(section.largeFiles, to: &writer)
            writer.write(UInt32(section.subdirectories.count))
            for name in section.subdirectories { writeBytes(name, to: &writer) }
            writer.write(UInt32(section.notes.count))
            for note in section.notes {
                writer.write(UInt8(note.failed ? 1 : 0))
                writeBytes(note.name, to: &writer)
                writeBytes(Array(note.reason.utf8.prefix(maxFailureBytes)), to: &writer)
            }
        }
        return writer.bytes
    }

    /// A `scanned`: at most `maxScanSections` sections, every name one component, each kind of
    /// entry at most `maxBlocksPerItem` over all sections, the small files within one item's
    /// bytes, and a pieces' table only when there are small files, for the same item and
    /// attempt, with a piece for each.
    static func scanned(_ parts: [ZMQFrame]) throws(ProtocolError) -> ScanReport {
        guard parts.count == 1 || parts.count == 2 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var reader = ByteReader(parts[0])
        let job = try reader.read(UInt64.self, "job id")
        let item = try reader.read(UInt64.self, "item id")
        let attempt = try reader.read(UInt64.self, "attempt")
        let rawOutcome = try reader.read(UInt8.self, "outcome")
        guard let outcome = ScanOutcome(rawValue: rawOutcome) else { throw .malformed("scan outcome \(rawOutcome)") }
        let reason = String(decoding: try readBytes(&reader, limit: maxFailureBytes, "reason"), as: UTF8.self)
        let sectionCount = Int(try reader.read(UInt32.self, "section count"))
        guard sectionCount <= ProtocolLimits.maxScanSections else {
            throw .tooMany("section count", count: sectionCount, limit: ProtocolLimits.maxScanSections)
        }
        var sections: [ScanSection] = []
        var totals = ScannedTotals()
        for _ in 0..<sectionCount { sections.append(try section(&reader, totals: &totals)) }
        try reader.expectEnd("scanned table")
        guard outcome == .listed || sections.isEmpty else { throw .malformed("a scan not listed lists entries") }
        // The pieces come with the listing, or later in a `resultRef`; never without small files.
        guard totals.small > 0 || parts.count == 1 else { throw .frameCount(expected: 2, actual: parts.count + 1) }
        var report = ScanReport(jobID: job, itemID: item, attempt: attempt, outcome: outcome, reason: reason, sections: sections)
        if parts.count == 2 {
            let result = try resultRef([parts[1]])
            guard result.jobID == job, result.itemID == item, result.attempt == attempt, result.pieces.count == totals.small else {
                throw .malformed("the pieces of a scan are not its small files'")
            }
            report.result = result
        }
        return report
    }

    /// What a `scanned`'s sections hold so far, against the bounds over all of them.
    private struct ScannedTotals {
        var small = 0, large = 0, subdirectories = 0, notes = 0
        var bytes: UInt64 = 0
    }

    private static func section(_ reader: inout ByteReader, totals: inout ScannedTotals) throws(ProtocolError) -> ScanSection {
        let directory = try readBytes(&reader, limit: ProtocolLimits.maxPathBytes, "section directory")
        guard directory.isEmpty || BatchFile.isRelativePath(directory) else { throw .malformed("section directory is not a relative path inside the root") }
        let resumeAfter = try name(&reader, "resume name", allowingEmpty: true)
        let small = try scannedFiles(&reader, small: true, totals: &totals)
        let large = try scannedFiles(&reader, small: false, totals: &totals)
        let subdirectoryCount = try count(&reader, "subdirectory count", adding: &totals.subdirectories)
        var subdirectories: [[UInt8]] = []
        subdirectories.reserveCapacity(min(subdirectoryCount, 1024))
        for _ in 0..<subdirectoryCount { subdirectories.append(try name(&reader, "subdirectory")) }
        let noteCount = try count(&reader, "note count", adding: &totals.notes)
        var notes: [ScanEntryNote] = []
        for _ in 0..<noteCount {
            let failed = try reader.read(UInt8.self, "note kind")
            guard failed <= 1 else { throw .malformed("note kind \(failed)") }
            let entry = try name(&reader, "note name")
            let why = String(decoding: try readBytes(&reader, limit: maxFailureBytes, "note reason"), as: UTF8.self)
            notes.append(ScanEntryNote(name: entry, failed: failed == 1, reason: why))
        }
        return ScanSection(
            directory: directory, resumeAfter: resumeAfter, smallFiles: small, largeFiles: large, subdirectories: subdirectories, notes: notes)
    }

    /// A list's count, added to `total`, which stays within `maxBlocksPerItem`.
    private static func count(_ reader: inout ByteReader, _ what: String, adding total: inout Int) throws(ProtocolError) -> Int {
        let count = Int(try reader.read(UInt32.self, what))
        guard count <= ProtocolLimits.maxBlocksPerItem - total else {
            throw .tooMany(what, count: total + count, limit: ProtocolLimits.maxBlocksPerItem)
        }
        total += count
        return count
    }

    private static func name(_ reader: inout ByteReader, _ what: String, allowingEmpty: Bool = false) throws(ProtocolError) -> [UInt8] {
        let bytes = try readBytes(&reader, limit: ProtocolLimits.maxNameBytes, what)
        guard (allowingEmpty && bytes.isEmpty) || ScanReport.isEntryName(bytes) else { throw .malformed("\(what) is not a name in a directory") }
        return bytes
    }

    /// One of a `scanned`'s file lists; small files are at most one block each and one item's
    /// bytes together.
    private static func scannedFiles(_ reader: inout ByteReader, small: Bool, totals: inout ScannedTotals) throws(ProtocolError) -> [BatchFile] {
        let count = small ? try count(&reader, "small file count", adding: &totals.small) : try count(&reader, "large file count", adding: &totals.large)
        var files: [BatchFile] = []
        files.reserveCapacity(min(count, 4096))
        for _ in 0..<count {
            let size = try reader.read(UInt64.self, "size")
            let seconds = try reader.read(Int64.self, "mtime seconds")
            let nanoseconds = try reader.read(Int64.self, "mtime nanoseconds")
            let inode = try reader.read(UInt64.self, "inode")
            let permissions = try reader.read(UInt32.self, "permissions")
            let entry = try name(&reader, "file name")
            guard (0...999_999_999).contains(nanoseconds) else { throw .malformed("mtime nanoseconds \(nanoseconds)") }
            if small {
                guard size <= UInt64(ProtocolLimits.maxBlockSize) else { throw .oversized("file", size: Int(clamping: size), limit: ProtocolLimits.maxBlockSize) }
                totals.bytes += size
                guard totals.bytes <= UInt64(ProtocolLimits.maxItemBytes) else {
                    throw .oversized("slice", size: Int(clamping: totals.bytes), limit: ProtocolLimits.maxItemBytes)
                }
            }
            files.append(BatchFile(
                relativePath: entry, size: size, modifiedSeconds: seconds, modifiedNanoseconds: nanoseconds, inode: inode,
                permissions: permissions & 0o7777))
        }
        return files
    }
}

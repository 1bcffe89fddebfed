import SqueezeIO
import SqueezeProtocol

/// What a worker's listing of a slice must be to be taken (`scanned`): the decoder has checked
/// that every name is one component and every list within its bound; here, that the listing
/// is one of this slice. Its first section is the slice's directory; every other is a
/// subdirectory an earlier section names, at most once. In each section every list is in byte
/// order without repeats, no name appears in two lists, every name comes after the section's
/// start (the slice's `after` for the first, none for the others) and, when the directory goes
/// on, at or before where the section says it ended, the path left out is not listed, and
/// files are on the side of `smallFileBytes` their list says. A listing that breaks these could
/// name a file twice, or another slice's files: it is refused.
enum ScanListingRules {
    /// The largest file a worker's listing may name: 16 TiB, ext4's largest file.
    static let maxListedFileBytes: UInt64 = 1 << 44

    /// Why `report` is not a listing of `slice`; nil when it is (or it is not `listed`).
    static func defect(of report: ScanReport, slice: ScanSlice, smallFileBytes: UInt64, exclude: BytePath?) -> String? {
        guard report.outcome == .listed else { return nil }
        guard let first = report.sections.first else { return "no section" }
        guard first.directory == slice.directory.bytes else { return "the first section is not the slice's directory" }
        // Directories the slice or its sections named and not yet read as a section of their own.
        var named = Set(slice.more.map(\.bytes))
        for (position, section) in report.sections.enumerated() {
            if position > 0 {
                guard named.remove(section.directory) != nil else { return "a section of a directory neither the slice nor an earlier section names" }
            }
            let directory = BytePath(bytes: section.directory)
            if let defect = defect(
                of: section, after: position == 0 ? slice.after : nil, smallFileBytes: smallFileBytes,
                exclude: DirectorySlice.excluded(exclude, in: directory)) {
                return defect
            }
            for name in section.subdirectories { named.insert(directory.appending(name).bytes) }
        }
        return nil
    }

    /// Why `section` is not a listing of its directory's entries after `after`; nil when it is.
    static func defect(of section: ScanSection, after: [UInt8]?, smallFileBytes: UInt64, exclude: [UInt8]?) -> String? {
        if let file = section.smallFiles.first(where: { $0.size > smallFileBytes }) {
            return "small file of \(file.size) bytes, over \(smallFileBytes)"
        }
        if let file = section.largeFiles.first(where: { $0.size <= smallFileBytes }) {
            return "large file of \(file.size) bytes, not over \(smallFileBytes)"
        }
        // The coordinator plans a large file's blocks before anyone reads it: a size no file
        // has would have it plan without end. A real one that large is listed by the
        // coordinator once the workers' listings run out of retries.
        if let file = section.largeFiles.first(where: { $0.size > maxListedFileBytes }) {
            return "large file of \(file.size) bytes, over the \(maxListedFileBytes) a listing may name"
        }
        let lists: [[[UInt8]]] = [
            section.smallFiles.map(\.relativePath), section.largeFiles.map(\.relativePath), section.subdirectories, section.notes.map(\.name),
        ]
        for list in lists where !isIncreasing(list) { return "names out of order or repeated" }
        let resume = section.resumeAfter.isEmpty ? nil : section.resumeAfter
        if let after, let resume, !after.lexicographicallyPrecedes(resume) { return "the slice ends where it started" }
        for list in lists {
            guard let first = list.first, let last = list.last else { continue }
            if let after, !after.lexicographicallyPrecedes(first) { return "a name before the slice's start" }
            if let resume, resume.lexicographicallyPrecedes(last) { return "a name past the slice's end" }
            if let exclude, list.contains(exclude) { return "the name left out is listed" }
        }
        // The other lists are short (a directory's large files, subdirectories, oddities):
        // each of their names is looked up among the small files, not every name sorted again.
        let small = lists[0]
        var others = Set<[UInt8]>()
        for list in lists.dropFirst() {
            for name in list {
                guard others.insert(name).inserted, !contains(small, name) else { return "a name in two lists" }
            }
        }
        return nil
    }

    /// Whether sorted `names` holds `name`.
    private static func contains(_ names: [[UInt8]], _ name: [UInt8]) -> Bool {
        var low = 0
        var high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle].lexicographicallyPrecedes(name) { low = middle + 1 } else { high = middle }
        }
        return low < names.count && names[low] == name
    }

    private static func isIncreasing(_ names: [[UInt8]]) -> Bool {
        var previous: [UInt8]?
        for name in names {
            if let previous, !previous.lexicographicallyPrecedes(name) { return false }
            previous = name
        }
        return true
    }
}

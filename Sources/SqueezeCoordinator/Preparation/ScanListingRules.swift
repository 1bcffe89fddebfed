import SqueezeProtocol

/// What a worker's listing of a slice must be to be taken (`scanned`): the decoder has checked
/// that every name is one component and every list within its bound; here, that the listing
/// is one of this slice. Each list is in byte order without repeats, no name appears in two
/// lists, every name comes after the slice's start and, when the directory goes on, at or
/// before where the slice says it ended, the name left out is not listed, and files are on
/// the side of `smallFileBytes` their list says. A listing that breaks these could name a
/// file twice, or another slice's files: it is refused.
enum ScanListingRules {
    /// Why `report` is not a listing of `slice`; nil when it is (or names no entries).
    static func defect(of report: ScanReport, slice: ScanSlice, smallFileBytes: UInt64, exclude: [UInt8]?) -> String? {
        guard report.outcome == .listed else { return nil }
        if let file = report.smallFiles.first(where: { $0.size > smallFileBytes }) {
            return "small file of \(file.size) bytes, over \(smallFileBytes)"
        }
        if let file = report.largeFiles.first(where: { $0.size <= smallFileBytes }) {
            return "large file of \(file.size) bytes, not over \(smallFileBytes)"
        }
        let lists: [[[UInt8]]] = [
            report.smallFiles.map(\.relativePath), report.largeFiles.map(\.relativePath), report.subdirectories, report.notes.map(\.name),
        ]
        for list in lists where !isIncreasing(list) { return "names out of order or repeated" }
        let resume = report.resumeAfter.isEmpty ? nil : report.resumeAfter
        if let after = slice.after, let resume, !after.lexicographicallyPrecedes(resume) { return "the slice ends where it started" }
        for list in lists {
            guard let first = list.first, let last = list.last else { continue }
            if let after = slice.after, !after.lexicographicallyPrecedes(first) { return "a name before the slice's start" }
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

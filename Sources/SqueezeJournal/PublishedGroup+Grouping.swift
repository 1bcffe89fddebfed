import Glibc

/// How a transaction's records become groups, and the byte order they are kept in.
extension PublishedGroup {
    /// `files` by job and folder, names sorted; of a path given twice, the later record. A
    /// batch's files come a folder's slice at a time, sorted: cut into runs of one folder and
    /// rising names in one pass, a folder's runs joined (hashing a folder per run, not per
    /// file), and a folder sorted only when its runs do not follow each other.
    static func grouping(_ files: [PublishedFile]) -> [PublishedGroup] {
        struct Key: Hashable {
            var job: UInt64
            var directory: ArraySlice<UInt8>
        }
        var groups: [PublishedGroup] = []
        var groupOf: [Key: Int] = [:]
        var sorted: [Bool] = []
        // The run being extended, in plain variables: an optional tuple was copied (and its
        // slices retained and released) for every file.
        var inRun = false
        var runJob: UInt64 = 0
        var runDirectory: ArraySlice<UInt8> = []
        var runGroup = 0
        var runName: ArraySlice<UInt8> = []
        for file in files {
            let slash = file.path.lastIndex(of: UInt8(ascii: "/"))
            let directory = slash.map { file.path[...$0] } ?? []
            let name = slash.map { file.path[($0 + 1)...] } ?? file.path[...]
            if inRun, runJob == file.job, compareBytes(runDirectory, directory) == 0, compareBytes(runName, name) < 0 {
                groups[runGroup].files.append(file)
                runName = name
                continue
            }
            let key = Key(job: file.job, directory: directory)
            let group: Int
            if let known = groupOf[key] {
                group = known
                if let last = groups[known].files.last, compareBytes(groups[known].name(of: last), name) >= 0 { sorted[known] = false }
                groups[known].files.append(file)
            } else {
                group = groups.count
                groupOf[key] = group
                groups.append(PublishedGroup(job: file.job, directory: Array(directory), files: [file]))
                sorted.append(true)
            }
            (inRun, runJob, runDirectory, runGroup, runName) = (true, file.job, directory, group, name)
        }
        for index in groups.indices where !sorted[index] {
            // Stable: of a name given twice, the later record is last, and is the one kept.
            let group = groups[index]
            var files: [PublishedFile] = []
            for file in group.files.enumerated().sorted(by: {
                let order = compareBytes(group.name(of: $0.element), group.name(of: $1.element))
                return order != 0 ? order < 0 : $0.offset < $1.offset
            }).map(\.element) {
                if let last = files.last, compareBytes(group.name(of: last), group.name(of: file)) == 0 {
                    files[files.count - 1] = file
                } else {
                    files.append(file)
                }
            }
            groups[index].files = files
        }
        return groups
    }

    /// memcmp order, then the shorter first: SQLite's order of BLOBs, and `lexicographicallyPrecedes`'s.
    static func compareBytes(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        let common = min(a.count, b.count)
        let compared = a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                guard common > 0, let a = a.baseAddress, let b = b.baseAddress else { return Int32(0) }
                return memcmp(a, b, common)
            }
        }
        if compared != 0 { return compared < 0 ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}

extension ScanReport {
    /// The digest under a key of what the listing says (docs/protocol.md, "Listing checks"):
    /// the outcome, then each section's directory and resume name, its small and large files
    /// (name, size, mtime, inode, permissions), subdirectories, and notes (name, whether
    /// failed; not the reason, whose words differ between hosts). Job, item, attempt and the
    /// pieces are not in it: two workers listing one slice of an unchanged tree agree.
    public func listingDigest(key0: UInt64, key1: UInt64) -> UInt64 {
        var hasher = SipHash24(key0: key0, key1: key1)
        hasher.add(UInt64(outcome.rawValue))
        hasher.add(UInt64(sections.count))
        for section in sections {
            hasher.add(string: section.directory)
            hasher.add(string: section.resumeAfter)
            for files in [section.smallFiles, section.largeFiles] {
                hasher.add(UInt64(files.count))
                for file in files {
                    hasher.add(string: file.relativePath)
                    hasher.add(file.size)
                    hasher.add(UInt64(bitPattern: file.modifiedSeconds))
                    hasher.add(UInt64(bitPattern: file.modifiedNanoseconds))
                    hasher.add(file.inode)
                    hasher.add(UInt64(file.permissions))
                }
            }
            hasher.add(UInt64(section.subdirectories.count))
            for name in section.subdirectories { hasher.add(string: name) }
            hasher.add(UInt64(section.notes.count))
            for note in section.notes {
                hasher.add(string: note.name)
                hasher.add(note.failed ? 1 : 0)
            }
        }
        return hasher.finalize()
    }
}

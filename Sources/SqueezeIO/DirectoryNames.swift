import Glibc

/// The names in an open directory, sorted by their bytes, without `.` and `..`: what the walk
/// and a slice of one directory both list.
enum DirectoryNames {
    /// Blocking: reads every name of `descriptor` (not taken over: a duplicate is listed and
    /// closed). `shown` names the directory in the error.
    static func read(_ descriptor: Int32, shown: BytePath) throws(FileSystemError) -> [[UInt8]] {
        // fdopendir takes over the descriptor it is given; the caller's stays open.
        let listing = dup(descriptor)
        guard listing >= 0, let stream = fdopendir(listing) else {
            let error = FileSystemError.last("opendir", shown.display)
            if listing >= 0 { close(listing) }
            throw error
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw FileSystemError.last("readdir", shown.display) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        return names
    }
}

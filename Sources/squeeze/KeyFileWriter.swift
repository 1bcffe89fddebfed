import Glibc

/// Writes a key file so that it is never readable by others for a moment: the bytes go into a
/// fresh temporary beside it (mkstemp: mode 0600 from the start), are synced, get the final
/// mode, and the temporary then takes the file's name (link, which refuses an existing name,
/// or rename when replacing).
enum KeyFileWriter {
    /// Why a key file could not be written; one line naming the path.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `text` to `path` with `mode`; an existing `path` is an error unless `replace`.
    static func write(_ text: String, to path: String, mode: mode_t, replace: Bool) throws(Failure) {
        let folder = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        var template = Array("\(folder.isEmpty ? "/" : folder)/.squeeze-key-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw Failure(description: "\(path): cannot create a file in \(folder): \(reason())") }
        let temporary = String(cString: template.map { UInt8(bitPattern: $0) })
        var done = false
        defer {
            if !done { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            try writeAll(Array(text.utf8), to: fd, path: path)
            guard fchmod(fd, mode) == 0 else { throw Failure(description: "\(path): cannot set its mode: \(reason())") }
            guard fsync(fd) == 0 else { throw Failure(description: "\(path): cannot sync: \(reason())") }
        }
        if replace {
            guard rename(temporary, path) == 0 else { throw Failure(description: "\(path): cannot write: \(reason())") }
        } else {
            guard link(temporary, path) == 0 else {
                let exists = errno == EEXIST
                throw Failure(description: exists ? "\(path) exists (--force replaces it)" : "\(path): cannot write: \(reason())")
            }
            unlink(temporary)
        }
        done = true
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "\(path): cannot write: \(reason())")
            }
            offset += count
        }
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}

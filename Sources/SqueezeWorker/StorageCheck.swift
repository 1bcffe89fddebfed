import Glibc
import SqueezeIO
import SqueezeProtocol

/// Answers a coordinator's storage probe: the worker shares its files only if it reads the
/// probe token at the coordinator's path, can create (and remove) a file beside it, and sees
/// the sample source file as the scan did. Blocking: run on a pool thread.
enum StorageCheck {
    static func answer(_ probe: StorageProbe) -> ProbeReply {
        do {
            try check(probe)
            return ProbeReply(jobID: probe.jobID, shared: true)
        } catch {
            return ProbeReply(jobID: probe.jobID, shared: false, reason: (error as? FileSystemError)?.reason ?? "\(error)")
        }
    }

    private static func check(_ probe: StorageProbe) throws {
        let workspace = BytePath(bytes: probe.workspace)
        let token = Array(probe.token.utf8)
        let probePath = workspace.appending(JobWorkspace.probeName)
        let fd = probePath.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", probePath.display) }
        var found = [UInt8](repeating: 0, count: token.count + 1)
        let got = found.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard got == token.count, Array(found.prefix(token.count)) == token else {
            throw FileSystemError(operation: "read", path: probePath.display, errno: 0, detail: "not the coordinator's probe")
        }
        let mine = workspace.appending(Array("w\(UInt64.random(in: 1...UInt64.max))".utf8))
        try PieceFile.write(mine, chunks: [token], member: nil, sync: false)
        _ = mine.withCString { unlink($0) }
        if let sample = probe.sample {
            let path = BytePath(bytes: sample.path)
            guard let info = try Directories.status(path) else {
                throw FileSystemError(operation: "stat", path: path.display, errno: ENOENT)
            }
            let seen = FileStamp(info)
            guard seen.size == sample.size, seen.inode == sample.inode,
                  seen.modifiedSeconds == sample.modifiedSeconds, seen.modifiedNanoseconds == sample.modifiedNanoseconds else {
                throw FileSystemError(operation: "stat", path: path.display, errno: 0, detail: "not the file the coordinator scanned")
            }
        }
    }
}

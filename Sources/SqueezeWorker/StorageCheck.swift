import Glibc
import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

/// Answers a coordinator's storage probe: the worker shares its files only if it reads the
/// probe token at the coordinator's path, writes an answer file beside it (which the
/// coordinator reads back), and sees the sample source file as the scan did: the same size and
/// mtime seconds, and the same first bytes. Inode numbers and mtime nanoseconds may differ (a
/// FUSE or network file system): the answer says which (`SharedView`), and the worker's reads
/// compare only what agrees. Blocking: run on a pool thread.
enum StorageCheck {
    static func answer(_ probe: StorageProbe) -> ProbeReply {
        do {
            return try check(probe)
        } catch {
            return ProbeReply(jobID: probe.jobID, shared: false, reason: (error as? FileSystemError)?.reason ?? "\(error)")
        }
    }

    private static func check(_ probe: StorageProbe) throws -> ProbeReply {
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
        var reply = ProbeReply(jobID: probe.jobID, shared: true)
        if let sample = probe.sample {
            let path = BytePath(bytes: sample.path)
            guard let info = try Directories.status(path) else {
                throw FileSystemError(operation: "stat", path: path.display, errno: ENOENT)
            }
            let seen = FileStamp(info)
            let view = try Self.view(of: sample, seen: seen, path: path.display)
            let head = try SourceReader.read(path, expected: seen, range: 0..<min(seen.size, UInt64(StorageProbe.sampleBytes)))
            reply.view = view
            reply.sampleCRC = CRC32.checksum(head)
        }
        // Left for the coordinator to read back and remove (the workspace goes with the job anyway).
        let name = ProbeReply.answerPrefix + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        try PieceFile.write(workspace.appending(Array(name.utf8)), chunks: [token], member: nil, sync: false)
        reply.answer = name
        return reply
    }

    /// What the worker's view of the sample keeps of the scan's stamp, or why it is not the
    /// file the coordinator scanned: size and mtime seconds must agree; the nanoseconds must
    /// too unless this view has none (0); the inode number may differ.
    static func view(of sample: ProbeSample, seen: FileStamp, path: String) throws -> SharedView {
        let nanoseconds = seen.modifiedNanoseconds == sample.modifiedNanoseconds
        guard seen.size == sample.size, seen.modifiedSeconds == sample.modifiedSeconds,
              nanoseconds || seen.modifiedNanoseconds == 0 else {
            throw FileSystemError(operation: "stat", path: path, errno: 0, detail: "not the file the coordinator scanned")
        }
        return SharedView(inodes: seen.inode == sample.inode, nanoseconds: nanoseconds)
    }
}

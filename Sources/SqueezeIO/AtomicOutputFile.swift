import CSqueezeSystem
import Glibc
import NIOConcurrencyHelpers

/// An output written under a temporary name in its destination folder, made durable and then
/// renamed into place: the final path holds a complete file or nothing.
///
/// Two ways to finish: `commit` (seal, sync and publish at once), or for a batch: `seal` each,
/// one `syncFileSystem` to write them all out, `sync` each (an fsync that finds nothing left
/// to write, but is what reports that file's own writeback errors), and only then `publish`
/// each. The fsyncs must all come before the renames: on ext4 an fsync after a rename in the
/// same transaction forces a journal commit per file.
/// Blocking: every method runs on a `BlockingIOPool` thread; calls for one file are serialised
/// by its owner.
public final class AtomicOutputFile: Sendable {
    private enum State {
        case open(Int32)
        case sealed(Int32)
        case synced
        case finished
    }

    /// Every temporary starts with this, so a later run can find and remove leftovers.
    public static let temporaryPrefix = ".squeeze-tmp-"

    /// Where the file will appear.
    public let finalPath: BytePath
    /// Where it is written meanwhile.
    public let temporaryPath: BytePath
    /// The device the temporary lives on; one `syncFileSystem` per device covers a batch.
    public let device: UInt64
    private let state: NIOLockedValueBox<State>
    /// What has been written and handed back to the kernel (`WriteBehind`); nil for an
    /// adopted piece, which is not written here, or once the file system refused
    /// `sync_file_range`.
    private let writeBehind: NIOLockedValueBox<WriteBehind?>
    /// An adopted piece's inode: a worker granted to publish it may rename it into place
    /// before this does (see `publish`).
    private let adoptedInode: UInt64?
    /// The temporary's inode; a rename keeps it.
    private let inode: UInt64
    /// Its length and last bytes as written here, so that `sealedFacts` need not read it back.
    private let written: NIOLockedValueBox<WrittenTail>
    /// Names of temporaries made by this process so far (see `temporaryName`).
    private static let temporariesNamed = NIOLockedValueBox<UInt64>(0)
    /// Drawn once per process: what makes its temporaries' names differ from another run's.
    private static let namingKey = UInt64.random(in: 0...UInt64.max)

    /// Creates the temporary (O_EXCL, mode 0600 until sealed) in `folder` (a job's workspace,
    /// on the same file system as `finalPath`), or next to `finalPath` when `folder` is nil.
    /// What is written goes to disk and leaves the page cache `writeBehindChunk` bytes at a
    /// time (`WriteBehind`).
    public init(finalPath: BytePath, in folder: BytePath? = nil, writeBehindChunk: UInt64 = WriteBehind.defaultChunk) throws {
        self.finalPath = finalPath
        let parent = folder ?? finalPath.parent
        var attempts = 0
        var path: BytePath
        var fd: Int32
        // A name taken already (a leftover of another run, however unlikely) is skipped.
        repeat {
            path = parent.appending(Self.temporaryName())
            fd = path.withCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) }
            attempts += 1
        } while fd < 0 && errno == EEXIST && attempts < 8
        temporaryPath = path
        guard fd >= 0 else { throw FileSystemError.last("create", finalPath.display) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = FileSystemError.last("stat", finalPath.display)
            close(fd)
            _ = temporaryPath.withCString { unlink($0) }
            throw error
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        state = NIOLockedValueBox(.open(fd))
        writeBehind = NIOLockedValueBox(WriteBehind(chunk: writeBehindChunk))
        adoptedInode = nil
        written = NIOLockedValueBox(WrittenTail())
    }

    /// A fresh temporary's name: the prefix and 64 bits of a hash (SipHash, Swift's `Hasher`) of
    /// a random per-process key and a count: unique in this process, unlike another run's, and
    /// hard to guess, without a `getrandom` per file.
    private static func temporaryName() -> [UInt8] {
        let count = temporariesNamed.withLockedValue { count -> UInt64 in
            count &+= 1
            return count
        }
        var hasher = Hasher()
        hasher.combine(namingKey)
        hasher.combine(count)
        let bits = UInt64(UInt(bitPattern: hasher.finalize()))
        return Array((temporaryPrefix + String(bits, radix: 16)).utf8)
    }

    /// Takes over a complete, sealed file someone else wrote (a shared-storage worker's
    /// gzip member) as the temporary of `finalPath`: it must be a regular file of exactly
    /// `expectedSize` bytes. From here it is synced, published or discarded like any other.
    public init(adopting piece: BytePath, finalPath: BytePath, expectedSize: UInt64) throws {
        self.finalPath = finalPath
        temporaryPath = piece
        let fd = piece.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open piece", finalPath.display) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = FileSystemError.last("stat piece", finalPath.display)
            close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG, UInt64(max(0, info.st_size)) == expectedSize else {
            close(fd)
            _ = piece.withCString { unlink($0) }
            throw FileSystemError(operation: "adopt piece", path: finalPath.display, errno: 0,
                                  detail: "the worker's piece is \(info.st_size) bytes, it reported \(expectedSize)")
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        state = NIOLockedValueBox(.sealed(fd))
        writeBehind = NIOLockedValueBox(nil)
        adoptedInode = UInt64(info.st_ino)
        var unseen = WrittenTail()
        unseen.appendedUnseen(expectedSize)
        written = NIOLockedValueBox(unseen)
    }

    deinit {
        discard()
    }

    private func fd(_ operation: String) throws -> Int32 {
        guard case .open(let fd) = state.withLockedValue({ $0 }) else {
            throw FileSystemError(operation: operation, path: finalPath.display, errno: EBADF)
        }
        return fd
    }

    /// Appends `chunks`, retrying short writes.
    public func write(_ chunks: [[UInt8]]) throws {
        for chunk in chunks {
            try chunk.withUnsafeBytes { try write($0) }
        }
    }

    /// Appends `head`, `body` and `tail` with one `writev` (a small file's header, member and
    /// trailer: one system call, not three); what a short write left goes on with `writeAll`.
    public func write(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, _ tail: UnsafeRawBufferPointer) throws {
        let fd = try fd("write")
        let parts = [head, body, tail]
        let vectors = parts.compactMap { part in
            part.baseAddress.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0), iov_len: part.count) }
        }
        let wrote = vectors.withUnsafeBufferPointer { list in
            FileDescriptorIO.retryingEINTR { writev(fd, list.baseAddress, Int32(list.count)) }
        }
        guard wrote >= 0 else { throw FileSystemError.last("write", finalPath.display) }
        var skip = wrote
        for part in parts {
            if skip >= part.count {
                skip -= part.count
                continue
            }
            try FileDescriptorIO.writeAll(fd, UnsafeRawBufferPointer(rebasing: part[skip...]), name: finalPath.display)
            skip = 0
        }
        written.withLockedValue { tail in
            for part in parts { tail.appended(part) }
        }
        try handBack(fd, wrote: UInt64(parts.reduce(0) { $0 + $1.count }))
    }

    /// Writes `bytes` over what the file holds at `offset` (a header completed last).
    public func write(_ bytes: [UInt8], at offset: UInt64) throws {
        let fd = try fd("write")
        try bytes.withUnsafeBytes { try FileDescriptorIO.writeAll(fd, $0, at: offset, name: finalPath.display) }
        written.withLockedValue { $0.overwrote(at: offset, count: bytes.count) }
    }

    /// Appends `bytes` (for example a received frame, written from where it arrived),
    /// retrying short writes.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        let fd = try fd("write")
        guard bytes.baseAddress != nil else { return }
        try FileDescriptorIO.writeAll(fd, bytes, name: finalPath.display)
        written.withLockedValue { $0.appended(bytes) }
        try handBack(fd, wrote: UInt64(bytes.count))
    }

    /// Carries out what `WriteBehind` asks after `count` more bytes: starts writeback of each
    /// full chunk and drains the chunk before it. A write-back error fails the file here,
    /// as the final fsync would; a file system without `sync_file_range` (EINVAL, ENOSYS,
    /// EOPNOTSUPP, ESPIPE) is written as before, all of it synced at the end.
    private func handBack(_ fd: Int32, wrote count: UInt64) throws {
        let actions = writeBehind.withLockedValue { policy in policy?.wrote(count) ?? [] }
        for action in actions {
            let range: Range<UInt64>
            let wait: Int32
            switch action {
            case .start(let started): (range, wait) = (started, 0)
            case .drain(let drained): (range, wait) = (drained, 1)
            }
            guard let offset = Int64(exactly: range.lowerBound), let length = Int64(exactly: range.count) else { return }
            let rc = FileDescriptorIO.retryingEINTR { squeeze_sync_file_range(fd, offset, length, wait) }
            if rc != 0 {
                if [EINVAL, ENOSYS, EOPNOTSUPP, ESPIPE].contains(errno) {
                    writeBehind.withLockedValue { $0 = nil }
                    return
                }
                throw FileSystemError.last("write back", finalPath.display)
            }
            // Advice: the pages are clean now, and a failure only leaves them cached.
            if wait != 0 { _ = posix_fadvise(fd, off_t(offset), off_t(length), POSIX_FADV_DONTNEED) }
        }
    }

    /// Appends the piece file at `piece`, which must hold exactly `length` bytes, and removes
    /// it; or, given `range`, the `length` bytes from there of a file that holds other blocks
    /// too (a placed output), which is kept. The kernel copies (`copy_file_range`; extents are shared where the file system can),
    /// falling back to read and write where it cannot.
    public func append(piece: BytePath, from range: UInt64? = nil, length: UInt64) throws {
        let fd = try fd("append")
        let source = piece.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard source >= 0 else { throw FileSystemError.last("open piece", finalPath.display) }
        defer {
            close(source)
            if range == nil { _ = piece.withCString { unlink($0) } }
        }
        let start = lseek(fd, 0, SEEK_CUR)
        guard start >= 0 else { throw FileSystemError.last("seek", finalPath.display) }
        try RangeCopier.copy(from: source, start: range, length: length, to: fd, at: UInt64(start), path: finalPath.display)
        guard lseek(fd, off_t(start) + off_t(length), SEEK_SET) >= 0 else { throw FileSystemError.last("seek", finalPath.display) }
        written.withLockedValue { $0.appendedUnseen(length) }
        try handBack(fd, wrote: length)
    }

    /// Sets permissions and mtime like gzip; no more writes. A sealed file keeps its
    /// temporary name (and its descriptor) until `publish`.
    public func seal(permissions: UInt32, modifiedSeconds: Int64, modifiedNanoseconds: Int64) throws {
        let fd = try fd("seal")
        guard fchmod(fd, mode_t(permissions & 0o777)) == 0 else { throw FileSystemError.last("chmod", finalPath.display) }
        var times = [
            timespec(tv_sec: time_t(modifiedSeconds), tv_nsec: Int(modifiedNanoseconds)),
            timespec(tv_sec: time_t(modifiedSeconds), tv_nsec: Int(modifiedNanoseconds)),
        ]
        guard futimens(fd, &times) == 0 else { throw FileSystemError.last("utimens", finalPath.display) }
        state.withLockedValue { $0 = .sealed(fd) }
    }

    /// Size, inode and the trailer's CRC of a sealed gzip file: from what this writer appended
    /// when it saw the last eight bytes (no system call), else read back (`readSealedFacts`).
    /// Fails for a file too short to be gzip.
    public func sealedFacts() throws -> SealedFacts {
        guard case .sealed = state.withLockedValue({ $0 }) else {
            throw FileSystemError(operation: "stat", path: finalPath.display, errno: EBADF)
        }
        let end = written.withLockedValue { $0 }
        if let crc = end.trailerCRC, end.size >= 18 {
            return SealedFacts(size: end.size, inode: inode, crc: crc)
        }
        return try readSealedFacts()
    }

    /// `sealedFacts` from the file itself: one `fstat`, one 8-byte `pread` of what is still in
    /// the page cache.
    func readSealedFacts() throws -> SealedFacts {
        guard case .sealed(let fd) = state.withLockedValue({ $0 }) else {
            throw FileSystemError(operation: "stat", path: finalPath.display, errno: EBADF)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError.last("stat", finalPath.display) }
        let size = UInt64(max(0, info.st_size))
        guard size >= 18 else {
            throw FileSystemError(operation: "read trailer", path: finalPath.display, errno: 0, detail: "only \(size) bytes: not a gzip file")
        }
        var trailer: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let got = withUnsafeMutableBytes(of: &trailer) { buffer in
            FileDescriptorIO.retryingEINTR { pread(fd, buffer.baseAddress, 4, off_t(size - 8)) }
        }
        guard got == 4 else {
            throw got < 0 ? FileSystemError.last("read trailer", finalPath.display)
                : FileSystemError(operation: "read trailer", path: finalPath.display, errno: 0, detail: "short read")
        }
        let crc = UInt32(trailer.0) | UInt32(trailer.1) << 8 | UInt32(trailer.2) << 16 | UInt32(trailer.3) << 24
        return SealedFacts(size: size, inode: UInt64(info.st_ino), crc: crc)
    }

    /// Fsyncs a sealed temporary and closes it. On failure the temporary is removed.
    public func sync() throws {
        guard case .sealed(let fd) = state.withLockedValue({ $0 }) else {
            throw FileSystemError(operation: "fsync", path: finalPath.display, errno: EBADF)
        }
        if fsync(fd) != 0 { throw removingTemporary(FileSystemError.last("fsync", finalPath.display)) }
        // A file large enough to have been written behind is dropped whole now that it is
        // clean: its last chunks' pages are free at once for the next output.
        if writeBehind.withLockedValue({ ($0?.started ?? 0) > 0 }) {
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        }
        state.withLockedValue { $0 = .synced }
        // From here the descriptor is gone, so failures must remove the temporary themselves.
        guard close(fd) == 0 else { throw removingTemporary(FileSystemError.last("close", finalPath.display)) }
    }

    /// Renames a synced temporary into place. Without `replace`, an output that appeared
    /// meanwhile is not overwritten.
    public func publish(replace: Bool) throws {
        guard case .synced = state.withLockedValue({ $0 }) else {
            throw FileSystemError(operation: "rename", path: finalPath.display, errno: EBADF)
        }
        state.withLockedValue { $0 = .finished }
        let renamed = replace
            ? temporaryPath.withCString { from in finalPath.withCString { to in rename(from, to) } }
            : Directories.renameWithoutReplacing(temporaryPath, to: finalPath)
        let failure = errno
        // The worker granted to publish this very piece renamed it first: it is in place.
        if renamed != 0 && failure == ENOENT, let adoptedInode,
           let now = try? Directories.status(finalPath), UInt64(now.st_ino) == adoptedInode, UInt64(now.st_dev) == device {
            return
        }
        errno = failure
        if renamed != 0 && errno == EEXIST && !replace {
            throw removingTemporary(FileSystemError(
                operation: "rename", path: finalPath.display, errno: EEXIST,
                detail: "output already exists (use --force to replace it)"))
        }
        guard renamed == 0 else { throw removingTemporary(FileSystemError.last("rename", finalPath.display)) }
    }

    /// Seals, syncs and publishes: one durable file on its own.
    public func commit(permissions: UInt32, modifiedSeconds: Int64, modifiedNanoseconds: Int64, replace: Bool) throws {
        try seal(permissions: permissions, modifiedSeconds: modifiedSeconds, modifiedNanoseconds: modifiedNanoseconds)
        try sync()
        try publish(replace: replace)
    }

    /// Writes out every dirty page and inode of the file system holding `path` (`syncfs`):
    /// one call makes a whole batch of sealed temporaries durable, instead of an fsync each.
    public static func syncFileSystem(containing path: BytePath) throws {
        let folder = path.parent
        let fd = folder.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw FileSystemError.last("open", folder.display) }
        defer { close(fd) }
        guard squeeze_syncfs(fd) == 0 else { throw FileSystemError.last("syncfs", folder.display) }
    }

    private func removingTemporary(_ error: FileSystemError) -> FileSystemError {
        let previous = state.withLockedValue { value -> State in
            defer { value = .finished }
            return value
        }
        if case .sealed(let fd) = previous { close(fd) }
        _ = temporaryPath.withCString { unlink($0) }
        return error
    }

    /// Removes the temporary (closing it first if open) unless it was published; idempotent.
    public func discard() {
        let previous = state.withLockedValue { value -> State in
            defer { value = .finished }
            return value
        }
        switch previous {
        case .open(let fd):
            close(fd)
            _ = temporaryPath.withCString { unlink($0) }
        case .sealed(let fd):
            close(fd)
            _ = temporaryPath.withCString { unlink($0) }
        case .synced:
            _ = temporaryPath.withCString { unlink($0) }
        case .finished:
            break
        }
    }
}

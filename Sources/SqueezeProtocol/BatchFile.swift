import SqueezeGzip

/// One file of a `batch` or `verifyBatch`: where it is below the batch's root and what the
/// scan saw of it. Its output is one whole gzip member: one block, or the blocks its batch's
/// `MemberBlocks` cut it into.
public struct BatchFile: Sendable, Equatable {
    /// The path below the batch's root: relative, no empty, `.` or `..` component, no NUL.
    public var relativePath: [UInt8]
    /// The scan's stamp: size, mtime, inode, checked before and after the read.
    public var size: UInt64
    /// Modification time, seconds (also the gzip header's MTIME).
    public var modifiedSeconds: Int64
    /// Modification time, nanoseconds.
    public var modifiedNanoseconds: Int64
    /// Inode number, as the coordinator sees it.
    public var inode: UInt64
    /// Permission bits the output gets.
    public var permissions: UInt32

    /// Creates a file entry.
    public init(relativePath: [UInt8], size: UInt64, modifiedSeconds: Int64, modifiedNanoseconds: Int64, inode: UInt64, permissions: UInt32) {
        self.relativePath = relativePath
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
        self.inode = inode
        self.permissions = permissions
    }
}

extension BatchFile {
    /// Whether `path` is a path a batch may name below its root: it cannot leave the root.
    public static func isRelativePath(_ path: [UInt8]) -> Bool {
        guard !path.isEmpty, path.count <= ProtocolLimits.maxPathBytes, !path.contains(0) else { return false }
        for component in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.isEmpty || component.elementsEqual([UInt8(ascii: ".")]) || component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                return false
            }
        }
        return true
    }

    /// The file's name: the last component, which its gzip header carries.
    public var name: [UInt8] {
        guard let slash = relativePath.lastIndex(of: UInt8(ascii: "/")) else { return relativePath }
        return Array(relativePath[(slash + 1)...])
    }

    /// The gzip header of its member: its name and mtime, as `gzip` writes them (and as the
    /// coordinator writes a one-block file's), with `level`'s XFL.
    public func memberHeader(level: Int) -> [UInt8] {
        GzipHeader(fileName: name, modificationTime: UInt32(clamping: modifiedSeconds), level: level).encoded()
    }

    /// The header of its member when its batch cuts files larger than one block (`blocks`):
    /// `memberHeader(level:)`'s fields, and for a file of several blocks whose member gets an
    /// offset table, the table with zero lengths (the writer fills them in; a checker compares
    /// everything else).
    public func memberHeader(level: Int, blocks: MemberBlocks?) -> GzipHeader {
        var header = GzipHeader(fileName: name, modificationTime: UInt32(clamping: modifiedSeconds), level: level)
        guard let blocks, blocks.splits(self) else { return header }
        let layout = BlockLayout(fileSize: size, blockSize: blocks.blockSize)
        if let perSpan = GzipOffsetTable.blocksPerSpan(for: layout, engine: blocks.engine) {
            header.offsetTable = .placeholder(for: layout, blocksPerSpan: perSpan)
        }
        return header
    }
}

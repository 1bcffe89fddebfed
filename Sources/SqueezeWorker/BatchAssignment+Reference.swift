import SqueezeGzip
import SqueezeIO
import SqueezeProtocol

extension BatchAssignment {
    /// The batch as the `workRef` it stands for: each file read whole, written as a whole member
    /// (header with its name and mtime, as the coordinator's own would be; one block, or the
    /// blocks `memberBlocks` cuts it into) in the piece of its position. The worker, not the
    /// coordinator, spells out each file.
    var reference: RefAssignment {
        let root = BytePath(bytes: root)
        let blocks = files.enumerated().map { position, file in
            RefBlock(
                file: UInt32(position), index: 0, path: root.appending(BytePath(bytes: file.relativePath)).bytes, offset: 0,
                dictionaryLength: 0, dataLength: Int(file.size), isLast: true, size: file.size, modifiedSeconds: file.modifiedSeconds,
                modifiedNanoseconds: file.modifiedNanoseconds, inode: file.inode, permissions: file.permissions,
                header: file.memberHeader(level: headerLevel, blocks: memberBlocks).encoded())
        }
        var work = RefAssignment(
            jobID: jobID, itemID: itemID, attempt: attempt, setting: setting, workspace: workspace, syncPieces: syncPieces, blocks: blocks)
        work.view = view
        work.memberBlocks = memberBlocks
        return work
    }
}

extension BatchCheck {
    /// The check as the `verify` it stands for: one member reference per file, to the piece
    /// of its position in this attempt.
    var request: VerifyRequest {
        let root = BytePath(bytes: root)
        let workspace = BytePath(bytes: workspace)
        let blocks = zip(files, pieceLengths).enumerated().map { position, entry in
            let (file, length) = entry
            var reference = VerifyReference(
                sourcePath: root.appending(BytePath(bytes: file.relativePath)).bytes, size: file.size, modifiedSeconds: file.modifiedSeconds,
                modifiedNanoseconds: file.modifiedNanoseconds, inode: file.inode, sourceOffset: 0, dictionaryLength: 0,
                rawLength: Int(file.size), isLast: true,
                compressedPath: JobWorkspace.piecePath(in: workspace, item: itemID, attempt: attempt, position: position).bytes,
                compressedOffset: 0, compressedLength: length, header: file.memberHeader(level: headerLevel, blocks: memberBlocks).encoded())
            reference.view = view
            return VerifyBlock.reference(reference)
        }
        return VerifyRequest(checkID: checkID, jobID: jobID, itemID: itemID, blocks: blocks)
    }
}

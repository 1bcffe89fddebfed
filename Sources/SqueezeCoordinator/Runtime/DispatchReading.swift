import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// What a reader task does with a dispatch for a remote worker, on a pool thread: its blocks
/// into one pooled buffer, and what the result check keeps of them.
enum DispatchReading {
    /// Reads every block of a dispatch into one pooled buffer, one read per run of
    /// consecutive blocks of a file (`O_DIRECT` where `direct` and `DirectReadSpan` allow);
    /// each block's frame is a range of it. Blocking, on a pool thread.
    static func read(_ dispatch: Dispatch, into buffers: FrameBufferPool, direct: Bool) -> Result<[WorkBlock], ReadFailures> {
        let plan = ReadPlan(dispatch.blocks)
        var failures = ReadFailures(files: [])
        let bytes = buffers.fill(count: plan.byteCount) { buffer in
            for run in plan.runs {
                let block = dispatch.blocks[run.block]
                do {
                    let slot = UnsafeMutableRawBufferPointer(rebasing: buffer[run.slot])
                    if let archive = block.archive {
                        try archive.read(run.range, into: slot)
                    } else {
                        try SourceReader.read(block.path, expected: block.stamp, range: run.range, into: slot, direct: direct)
                    }
                } catch {
                    failures.files.append((block.ref.file, (error as? FileSystemError)?.reason ?? "\(error)"))
                }
            }
            return buffer.count
        }
        guard failures.files.isEmpty else { return .failure(failures) }
        return .success(zip(dispatch.blocks, plan.frames).map { block, frame in
            WorkBlock(
                file: UInt32(block.ref.file), index: UInt32(block.ref.index), dictionaryLength: block.dictionaryLength,
                isLast: block.isLast, bytes: ZMQFrame(bytes, range: frame))
        })
    }

    /// What the result check needs of the blocks read for a remote worker: the CRC of each
    /// block's data and a copy of its dictionary (at most 32 KiB; the read buffer itself goes
    /// back to the pool once sent). Blocking, on a pool thread.
    static func sources(of blocks: [WorkBlock], refs: [BlockRef]) -> [BlockRef: SourceBlock] {
        var sources: [BlockRef: SourceBlock] = [:]
        for (ref, block) in zip(refs, blocks) {
            sources[ref] = block.bytes.withUnsafeBytes { bytes in
                let split = min(block.dictionaryLength, bytes.count)
                return SourceBlock(
                    crc: CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[split...])),
                    dictionary: Array(bytes[..<split]))
            }
        }
        return sources
    }
}

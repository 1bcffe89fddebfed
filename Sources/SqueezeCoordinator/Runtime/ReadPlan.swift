/// How a reader loads a dispatch into one buffer: consecutive blocks of a file make one run,
/// read with one `pread` (a block's dictionary is the end of the block before it, so a run
/// covers each byte once), and the runs lie one after another in the buffer. Each block's
/// frame is then a range of that buffer: dictionary and data, overlapping the previous
/// block's frame by the dictionary.
struct ReadPlan: Equatable {
    /// One contiguous read.
    struct Run: Equatable {
        /// The dispatch block whose file (path and stamp) the run reads.
        var block: Int
        /// The file's bytes to read.
        var range: Range<UInt64>
        /// Where they go in the buffer.
        var offset: Int

        /// The buffer range the run fills.
        var slot: Range<Int> { offset..<offset + Int(range.upperBound - range.lowerBound) }
    }

    /// The reads, in buffer order.
    private(set) var runs: [Run] = []
    /// For each dispatch block, in order, its frame's range in the buffer.
    private(set) var frames: [Range<Int>] = []
    /// The buffer's length: every run's bytes.
    private(set) var byteCount = 0

    /// Plans `blocks` (the ranges are the plan's own, from the scan, not from the network).
    init(_ blocks: [DispatchBlock]) {
        frames.reserveCapacity(blocks.count)
        for (index, block) in blocks.enumerated() {
            let range = block.readRange
            if var run = runs.last, blocks[run.block].ref.file == block.ref.file,
               range.lowerBound >= run.range.lowerBound, range.lowerBound <= run.range.upperBound {
                // Continues the run (overlapping it by the dictionary, or right after it).
                let grown = max(run.range.upperBound, range.upperBound)
                byteCount += Int(grown - run.range.upperBound)
                run.range = run.range.lowerBound..<grown
                runs[runs.count - 1] = run
                let start = run.offset + Int(range.lowerBound - run.range.lowerBound)
                frames.append(start..<start + Int(range.upperBound - range.lowerBound))
                continue
            }
            runs.append(Run(block: index, range: range, offset: byteCount))
            frames.append(byteCount..<byteCount + Int(range.upperBound - range.lowerBound))
            byteCount += Int(range.upperBound - range.lowerBound)
        }
    }
}

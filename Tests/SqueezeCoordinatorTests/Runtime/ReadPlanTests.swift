import SqueezeGzip
import SqueezeIO
import Testing
@testable import SqueezeCoordinator

/// The dispatch blocks of `indices` of a file laid out in `blockSize` blocks.
private func blocks(file: Int, size: UInt64, blockSize: Int, _ indices: [Int]) -> [DispatchBlock] {
    let layout = BlockLayout(fileSize: size, blockSize: blockSize)
    let stamp = FileStamp(size: size, modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(file), permissions: 0o644)
    return indices.map { index in
        let range = layout.range(of: index)
        let dictionary = layout.dictionaryRange(of: index)
        return DispatchBlock(
            ref: BlockRef(file: file, index: index), path: BytePath("/src/f\(file)"), stamp: stamp,
            readRange: dictionary.lowerBound..<range.upperBound,
            dictionaryLength: Int(dictionary.upperBound - dictionary.lowerBound), isLast: layout.isLast(index))
    }
}

@Suite("ReadPlan")
struct ReadPlanTests {
    @Test("consecutive blocks of a file are one read; each frame is its dictionary and data in the buffer")
    func consecutiveBlocksShareARead() {
        let blockSize = 100_000
        let plan = ReadPlan(blocks(file: 0, size: 1_000_000, blockSize: blockSize, [2, 3, 4]))
        // From block 2's dictionary (32 KiB before 200,000) to the end of block 4, read once.
        #expect(plan.runs == [ReadPlan.Run(block: 0, range: 167_232..<500_000, offset: 0)])
        #expect(plan.byteCount == 500_000 - 167_232)
        #expect(plan.frames == [0..<132_768, 100_000..<232_768, 200_000..<332_768])
    }

    @Test("other files, and gaps within a file, start new reads one after another in the buffer")
    func separateRuns() {
        let first = blocks(file: 0, size: 1_000_000, blockSize: 100_000, [0, 1])
        let gap = blocks(file: 0, size: 1_000_000, blockSize: 100_000, [5])
        let small = blocks(file: 1, size: 500, blockSize: 100_000, [0]) + blocks(file: 2, size: 0, blockSize: 100_000, [0])
        let plan = ReadPlan(first + gap + small)
        #expect(plan.runs.map(\.range) == [0..<200_000, 467_232..<600_000, 0..<500, 0..<0])
        #expect(plan.runs.map(\.offset) == [0, 200_000, 332_768, 333_268])
        #expect(plan.frames == [0..<100_000, 67_232..<200_000, 200_000..<332_768, 332_768..<333_268, 333_268..<333_268])
        #expect(plan.byteCount == 333_268)
    }
}

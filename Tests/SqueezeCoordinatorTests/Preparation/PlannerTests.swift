import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import Testing
@testable import SqueezeCoordinator

private func file(_ index: Int, size: UInt64, blockSize: Int) -> PlannedFile {
    PlannedFile(
        index: index, relativePath: BytePath("f\(index)"),
        stamp: FileStamp(size: size, modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(index), permissions: 0o644),
        layout: BlockLayout(fileSize: size, blockSize: blockSize))
}

@Suite("Planner")
struct PlannerTests {
    @Test("a file of few blocks becomes one item per block; small files are bundled to about a block")
    func shapes() {
        let blockSize = 1000
        let files = [file(0, size: 2500, blockSize: blockSize)] + (1...10).map { file($0, size: 300, blockSize: blockSize) } + [file(11, size: 0, blockSize: blockSize)]
        let items = Planner.items(for: files, blockSize: blockSize, itemBytes: 8 * blockSize)
        let big = items.filter { $0.blocks.contains { $0.file == 0 } }
        #expect(big.count == 3)
        #expect(big.allSatisfy { $0.blocks.count == 1 })
        let small = items.filter { !$0.blocks.contains { $0.file == 0 } }
        #expect(small.allSatisfy { $0.bytes <= blockSize })
        #expect(small.map(\.blocks.count) == [3, 3, 3, 2])
        // Every block of every file is planned exactly once, and ids are positions.
        let refs = items.flatMap(\.blocks)
        #expect(refs.count == Set(refs).count)
        #expect(refs.count == 3 + 10 + 1)
        #expect(items.enumerated().allSatisfy { ItemID(UInt64($0.offset)) == $0.element.id })
    }

    @Test("a large file's items carry consecutive blocks up to the item size, in order, the last one shorter")
    func largeFileItems() {
        let blockSize = 1000
        // 100 blocks: 16 items at least, so 6 blocks each (not the 8 the item size allows).
        let files = [file(0, size: 99_500, blockSize: blockSize), file(1, size: 500, blockSize: blockSize)]
        let items = Planner.items(for: files, blockSize: blockSize, itemBytes: 8 * blockSize)
        let big = items.filter { $0.blocks.contains { $0.file == 0 } }
        #expect(big.map(\.blocks.count) == Array(repeating: 6, count: 16) + [4])
        #expect(big.flatMap(\.blocks).map(\.index) == Array(0..<100))
        #expect(big.map(\.bytes) == Array(repeating: 6000, count: 16) + [3500])
        // A huge file is capped by the item size instead: four times the item size at its
        // head, the item size for its last items (eight, and two more for the 80 blocks that do
        // not fill a wide item).
        let huge = [file(0, size: 10_000_000, blockSize: blockSize)]
        let hugeItems = Planner.items(for: huge, blockSize: blockSize, itemBytes: 8 * blockSize)
        #expect(hugeItems.map(\.blocks.count) == Array(repeating: 32, count: 310) + Array(repeating: 8, count: 10))
        #expect(hugeItems.map(\.bytes) == Array(repeating: 32_000, count: 310) + Array(repeating: 8000, count: 10))
        #expect(hugeItems.flatMap(\.blocks).map(\.index) == Array(0..<10_000))
        #expect(Planner.blocksPerItem(blockCount: 10_000, blockSize: 1 << 20, itemBytes: 4 << 20) == 4)
        #expect(Planner.blocksPerItem(blockCount: 10_000, blockSize: 8 << 20, itemBytes: 4 << 20) == 1)
    }

    @Test("a large file's head goes in wide items; what does not fill one joins its tail of plain items, the last one shorter")
    func taperedItems() {
        let blockSize = 1000
        // 1,000 blocks (the last one short), 4 per plain item: 8 plain items make the tail
        // (32 blocks); 968 blocks are 60 wide items of 16 and 8 blocks over, which join the
        // tail as two more plain items.
        let even = Planner.items(for: [file(0, size: 999_500, blockSize: blockSize)], blockSize: blockSize, itemBytes: 4 * blockSize)
        #expect(even.map(\.blocks.count) == Array(repeating: 16, count: 60) + Array(repeating: 4, count: 10))
        #expect(even.last?.bytes == 3500)
        // 1,005 blocks: 973 after the tail, 60 wide items and 13 blocks over, which join the
        // tail as three more plain items and a short one.
        let uneven = Planner.items(for: [file(0, size: 1_004_200, blockSize: blockSize)], blockSize: blockSize, itemBytes: 4 * blockSize)
        #expect(uneven.map(\.blocks.count) == Array(repeating: 16, count: 60) + Array(repeating: 4, count: 11) + [1])
        #expect(uneven.flatMap(\.blocks).map(\.index) == Array(0..<1005))
        #expect(uneven.last?.bytes == 200)
        // A file too short for a tail of eight plain items has no head.
        let short = Planner.items(for: [file(0, size: 20_000, blockSize: blockSize)], blockSize: blockSize, itemBytes: 4 * blockSize)
        #expect(short.map(\.blocks.count) == Array(repeating: 1, count: 20))
        // Wide items never make a file spread over fewer than 16 items: with 4-block plain
        // items they could be 8 blocks, but 40 blocks over 16 items leave 2 per item.
        let spread = Planner.shape(blockCount: 40, blockSize: blockSize, itemBytes: 4 * blockSize).ranges
        #expect(spread.count >= 16)
        #expect(spread.allSatisfy { $0.count <= 2 })
    }

    @Test("every block maps back to the item the planner put it in, whatever the file's shape")
    func blockToItem() {
        for itemBlocks in [1, 3, 8] {
            for blockCount in 2...1200 {
                let shape = Planner.shape(blockCount: blockCount, blockSize: 1000, itemBytes: itemBlocks * 1000)
                let ranges = shape.ranges
                #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == blockCount - 1)
                for (position, blocks) in ranges.enumerated() {
                    for block in blocks where shape.item(of: block) != position {
                        Issue.record("\(blockCount) blocks, \(itemBlocks) per item: block \(block) maps to \(shape.item(of: block)), planned in \(position)")
                        return
                    }
                }
            }
        }
    }

    @Test("many small files are bundled up to the item size; few stay in block-sized bundles")
    func bundleSizes() {
        let blockSize = 1000
        let many = (0..<2000).map { file($0, size: 500, blockSize: blockSize) }
        let items = Planner.items(for: many, blockSize: blockSize, itemBytes: 8 * blockSize)
        // 1 MB of small files over 64 bundles would be 15.6 KB each; the item size caps it at 8 KB.
        #expect(items.count == 125)
        #expect(items.allSatisfy { $0.bytes == 8000 && $0.blocks.count == 16 })
        let some = (0..<200).map { file($0, size: 500, blockSize: blockSize) }
        // 100 KB over 64 bundles is 1.5 KB each: three files per bundle.
        let fewer = Planner.items(for: some, blockSize: blockSize, itemBytes: 8 * blockSize)
        #expect(fewer.dropLast().allSatisfy { $0.blocks.count == 3 })
        #expect(fewer.flatMap(\.blocks).map(\.file) == Array(0..<200))
    }

    @Test("as the scan goes: a large file is planned at once, small files wait until they fill bundles of the item size")
    func streaming() {
        let blockSize = 1000
        var planner = Planner(blockSize: blockSize, itemBytes: 8 * blockSize)
        // 64 bundles of 8,000 bytes is the point where small files stop waiting.
        let first = planner.add([file(0, size: 20_000, blockSize: blockSize)] + (1...500).map { file($0, size: 1000, blockSize: blockSize) })
        #expect(first.allSatisfy { $0.blocks.allSatisfy { $0.file == 0 } })
        #expect(first.flatMap(\.blocks).count == 20)
        #expect(planner.hasQueued)
        let second = planner.add((501...1100).map { file($0, size: 1000, blockSize: blockSize) })
        // 1,100 KB queued: full bundles of 8 files go, the last four files wait.
        #expect(second.count == 137)
        #expect(second.allSatisfy { $0.blocks.count == 8 && $0.bytes == 8000 })
        #expect(second.flatMap(\.blocks).map(\.file) == Array(1...1096))
        let last = planner.flush()
        #expect(last.flatMap(\.blocks).map(\.file) == Array(1097...1100))
        #expect(!planner.hasQueued)
        // Ids run on across calls, from 0.
        #expect((first + second + last).map(\.id) == (0..<first.count + second.count + last.count).map { ItemID(UInt64($0)) })
        #expect(planner.flush().isEmpty)
    }

    @Test("a flood of tiny files is bundled once enough of them wait, whatever their bytes")
    func tinyFiles() {
        var planner = Planner(blockSize: 1000, itemBytes: 8000)
        let count = Planner.queuedFilesLimit
        let items = planner.add((0..<count).map { file($0, size: 1, blockSize: 1000) })
        #expect(!planner.hasQueued)
        #expect(items.flatMap(\.blocks).count == count)
        // Spread over 64 bundles: 65,536 bytes over 64 is 1,024 each (above a block).
        #expect(items.count == Planner.minimumBundles)
        #expect(items.allSatisfy { $0.blocks.count == 1024 })
    }

    @Test("no item carries more than the protocol's item size, whatever the item size asked: large files' items and bundles alike")
    func itemsWithinTheProtocol() {
        let blockSize = 1 << 20
        let limit = ProtocolLimits.maxItemBytes
        // A 64 GiB file and 20,000 files of 1 MiB, with items of 1 GiB asked for: without the
        // cap, head items of 4 GiB and bundles of 312.5 MiB (the files spread over 64).
        let files = [file(0, size: 64 << 30, blockSize: blockSize)] + (1...20_000).map { file($0, size: UInt64(blockSize), blockSize: blockSize) }
        let items = Planner.items(for: files, blockSize: blockSize, itemBytes: 1 << 30)
        #expect(items.allSatisfy { $0.bytes <= limit && $0.blocks.count <= limit / blockSize })
        // The cap does not cut items smaller than it needs to: the head items and the bundles are full.
        #expect(items.filter { $0.blocks.first?.file == 0 }.map(\.bytes).max() == limit)
        #expect(items.filter { $0.blocks.first?.file != 0 }.map(\.bytes).max() == limit)
        #expect(items.flatMap(\.blocks).count == 65_536 + 20_000)
        #expect(Planner.maxBlocks(blockSize: 4096) == ProtocolLimits.maxBlocksPerItem)
        #expect(Planner.maxBlocks(blockSize: ProtocolLimits.maxBlockSize) == 4)
    }

    @Test("with batches, a file of several blocks up to wholeUpTo joins the bundles whole; past it, or without batches, it is cut into items")
    func wholeFilesInBatches() {
        let blockSize = 1000
        let files = [file(0, size: 300, blockSize: blockSize), file(1, size: 3000, blockSize: blockSize), file(2, size: 5000, blockSize: blockSize)]
        var batches = Planner(blockSize: blockSize, itemBytes: 8 * blockSize, batches: true)
        let items = batches.add(files, wholeUpTo: 4000) + batches.flush()
        let cut = items.filter { $0.files == nil }
        #expect(cut.flatMap(\.blocks).allSatisfy { $0.file == 2 } && cut.flatMap(\.blocks).map(\.index).sorted() == Array(0..<5))
        #expect(items.compactMap(\.files).flatMap { $0 }.map(\.index).sorted() == [0, 1], "the 3,000-byte file is in a batch, whole")
        #expect(batches.bundles(files[1].layout, wholeUpTo: 4000) && !batches.bundles(files[2].layout, wholeUpTo: 4000))
        #expect(!batches.bundles(files[1].layout, wholeUpTo: 0), "no limit given: cut, as a batch that leaves its path plans them")
        var bundles = Planner(blockSize: blockSize, itemBytes: 8 * blockSize, batches: false)
        let plain = bundles.add(files, wholeUpTo: 4000) + bundles.flush()
        #expect(plain.allSatisfy { $0.files == nil })
        #expect(plain.flatMap(\.blocks).filter { $0.file == 1 }.map(\.index).sorted() == [0, 1, 2], "a bundle holds one-block files only")
    }

    @Test("a flush may be given its bundles' most bytes and how many bundles to spread over, a block each at least")
    func flushShapes() {
        let blockSize = 1000
        let files = (0..<20).map { file($0, size: 300, blockSize: blockSize) }
        func flushed(_ flush: (inout Planner) -> [PlannedItem]) -> [Int] {
            var planner = Planner(blockSize: blockSize, itemBytes: 8 * blockSize, batches: true)
            _ = planner.add(files)
            let items = flush(&planner)
            #expect(!planner.hasQueued)
            return items.map(\.bytes)
        }
        #expect(flushed { $0.flush() } == Array(repeating: 900, count: 6) + [600], "64 bundles wanted: a block each")
        #expect(flushed { $0.flush(upTo: 4000, over: 1) } == [3900, 2100])
        #expect(flushed { $0.flush(upTo: 4000, over: 3) } == [1800, 1800, 1800, 600])
        #expect(flushed { $0.flush(upTo: 10, over: 1) } == Array(repeating: 900, count: 6) + [600], "never under a block")
    }

    @Test("no files, no items")
    func empty() {
        #expect(Planner.items(for: [], blockSize: 1000, itemBytes: 8000).isEmpty)
    }

    @Test("paths inside a folder are recognised, siblings with a common prefix are not")
    func within() {
        #expect(JobPreparer.isWithin(BytePath("/a/b"), BytePath("/a/b")))
        #expect(JobPreparer.isWithin(BytePath("/a/b/c"), BytePath("/a/b")))
        #expect(!JobPreparer.isWithin(BytePath("/a/bc"), BytePath("/a/b")))
        #expect(JobPreparer.isWithin(BytePath("/x"), BytePath("/")))
    }
}

import SqueezeGzip
import SqueezeIO
import Testing
@testable import SqueezeCoordinator

private func file(_ index: Int, size: UInt64, blockSize: Int) -> PlannedFile {
    PlannedFile(
        index: index, relativePath: BytePath("f\(index)"), sourcePath: BytePath("/src/f\(index)"),
        outputPath: BytePath("/dst/f\(index).gz"),
        stamp: FileStamp(size: size, modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(index), permissions: 0o644),
        layout: BlockLayout(fileSize: size, blockSize: blockSize))
}

@Suite("Planner")
struct PlannerTests {
    @Test("large files become one item per block; small files are bundled to about a block")
    func shapes() {
        let blockSize = 1000
        let files = [file(0, size: 2500, blockSize: blockSize)] + (1...10).map { file($0, size: 300, blockSize: blockSize) } + [file(11, size: 0, blockSize: blockSize)]
        let items = Planner.items(for: files, blockSize: blockSize)
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
        #expect(items.enumerated().allSatisfy { UInt64($0.offset) == $0.element.id })
    }

    @Test("no files, no items")
    func empty() {
        #expect(Planner.items(for: [], blockSize: 1000).isEmpty)
    }

    @Test("paths inside a folder are recognised, siblings with a common prefix are not")
    func within() {
        #expect(JobPreparer.isWithin(BytePath("/a/b"), BytePath("/a/b")))
        #expect(JobPreparer.isWithin(BytePath("/a/b/c"), BytePath("/a/b")))
        #expect(!JobPreparer.isWithin(BytePath("/a/bc"), BytePath("/a/b")))
        #expect(JobPreparer.isWithin(BytePath("/x"), BytePath("/")))
    }
}

@testable import SqueezeCoordinator
import SqueezeGzip
import Testing

struct PlacementTests {
    /// Every item's first dispatch writes in place; a second dispatch of any item (its worker
    /// was declared dead, or its answer was refused) may race a late write of the first, so
    /// from then on nothing of the file is placed and the placed output is never published.
    @Test func aSecondDispatchOfAnyItemBreaksThePlacementForGood() {
        var placement = Placement(output: 7, headerLength: 20)
        var placed: [Bool] = []
        for item: ItemID in [1, 2] { placed.append(placement.admit(item: item)) }
        #expect(placed == [true, true])
        #expect(!placement.broken)
        for item: ItemID in [1, 3, 2] { placed.append(placement.admit(item: item)) }
        #expect(placed == [true, true, false, false, false], "a fresh item of a broken file was placed")
        #expect(placement.broken)
    }

    /// Offsets come from the stored framing of every block before; the end is where the
    /// trailer goes. Checked against the bytes a member of those blocks really has.
    @Test(arguments: [(UInt64(3 * 100_000 + 17), 100_000), (UInt64(2 * 65_535), 65_535), (UInt64(1 << 20), 1 << 18), (UInt64(65_536 + 1), 65_536)])
    func offsetsAndEndMatchTheEncodedMember(size: UInt64, blockSize: Int) throws {
        let layout = BlockLayout(fileSize: size, blockSize: blockSize)
        let header = GzipHeader(fileName: Array("f.bin".utf8), modificationTime: 1, level: 0)
        let placement = Placement(output: 1, headerLength: header.encoded().count)
        let compressor = try BlockCompressor(setting: LevelTable.setting(forLevel: 0))
        let data = [UInt8](repeating: 0x5A, count: Int(size))
        var expectedOffset = UInt64(header.encoded().count)
        for index in 0..<layout.count {
            #expect(placement.offset(of: index, in: layout) == expectedOffset, "block \(index)")
            let range = layout.range(of: index)
            let block = try data.withUnsafeBytes { raw in
                try compressor.compress(UnsafeRawBufferPointer(rebasing: raw[Int(range.lowerBound)..<Int(range.upperBound)]),
                                        dictionary: UnsafeRawBufferPointer(start: nil, count: 0), isLast: layout.isLast(index))
            }
            expectedOffset += UInt64(block.bytes.count)
        }
        #expect(placement.end(of: layout) == expectedOffset)
        let member = try GzipMember.compress(data, blockSize: blockSize, setting: LevelTable.setting(forLevel: 0), header: header)
        #expect(UInt64(member.count) == placement.end(of: layout) + 8)
    }

    @Test func onlyMultiBlockStoredFilesArePlaced() throws {
        let stored = try LevelTable.setting(forLevel: 0)
        #expect(Placement.applies(to: BlockLayout(fileSize: 3 << 20, blockSize: 1 << 20), setting: stored))
        #expect(!Placement.applies(to: BlockLayout(fileSize: 1 << 20, blockSize: 1 << 20), setting: stored))
        #expect(!Placement.applies(to: BlockLayout(fileSize: 0, blockSize: 1 << 20), setting: stored))
        #expect(!Placement.applies(to: BlockLayout(fileSize: 3 << 20, blockSize: 1 << 20), setting: try LevelTable.setting(forLevel: 1)))
    }
}

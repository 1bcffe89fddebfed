/// Builds a whole gzip member from an in-memory buffer — for tests and tiny inputs.
public enum GzipMember {
    /// Compresses `data` into one gzip member, split per `BlockLayout`, with `setting`.
    ///
    /// - Parameter blockOrder: the order blocks are compressed in (a permutation of the block
    ///   indices); `nil` means in order. The bytes must not depend on it.
    /// - Parameter offsetTable: give a member of several blocks a `GzipOffsetTable` in its header
    ///   (what the drop-in writes); a block that starts a span is then compressed without a dictionary.
    /// - Throws: `ZlibError` or `EngineError` from the compressor.
    public static func compress(_ data: [UInt8], blockSize: Int, setting: EngineSetting, header: GzipHeader,
                                blockOrder: [Int]? = nil, offsetTable: Bool = false) throws -> [UInt8] {
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: blockSize)
        let perSpan = offsetTable ? GzipOffsetTable.blocksPerSpan(for: layout, engine: setting.engine) : nil
        let order = blockOrder ?? Array(0..<layout.count)
        precondition(order.sorted() == Array(0..<layout.count),
                     "blockOrder must be a permutation of 0..<\(layout.count)")

        let compressor = try BlockCompressor(setting: setting)
        var blocks = [CompressedBlock?](repeating: nil, count: layout.count)
        try data.withUnsafeBytes { file in
            for index in order {
                let block = UnsafeRawBufferPointer(rebasing: file[intRange(layout.range(of: index))])
                let restarts = perSpan.map { index % $0 == 0 } ?? false
                let dictionary = UnsafeRawBufferPointer(
                    rebasing: file[restarts ? 0..<0 : intRange(layout.dictionaryRange(of: index))])
                blocks[index] = try compressor.compress(block, dictionary: dictionary,
                                                        isLast: layout.isLast(index))
            }
        }

        var header = header
        if let perSpan {
            header.offsetTable = .of(blockLengths: blocks.map { $0?.bytes.count ?? 0 }, blockSize: blockSize, blocksPerSpan: perSpan)
        }
        var member = header.encoded()
        var checksum = MemberChecksum()
        for block in blocks {
            // Every index was visited, because `order` is a permutation.
            guard let block else { preconditionFailure("block was not compressed") }
            member.append(contentsOf: block.bytes)
            checksum.append(crc: block.crc, length: block.rawLength)
        }
        member.append(contentsOf: checksum.trailer.encoded())
        return member
    }

    private static func intRange(_ range: Range<UInt64>) -> Range<Int> {
        Int(range.lowerBound)..<Int(range.upperBound)
    }
}

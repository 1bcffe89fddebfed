/// Builds a whole gzip member from an in-memory buffer — for tests and tiny inputs.
public enum GzipMember {
    /// Compresses `data` into one gzip member, split per `BlockLayout`, with `setting`.
    ///
    /// - Parameter blockOrder: the order blocks are compressed in (a permutation of the block
    ///   indices); `nil` means in order. The bytes must not depend on it.
    /// - Throws: `ZlibError` or `EngineError` from the compressor.
    public static func compress(_ data: [UInt8], blockSize: Int, setting: EngineSetting, header: GzipHeader,
                                blockOrder: [Int]? = nil) throws -> [UInt8] {
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: blockSize)
        let order = blockOrder ?? Array(0..<layout.count)
        precondition(order.sorted() == Array(0..<layout.count),
                     "blockOrder must be a permutation of 0..<\(layout.count)")

        let compressor = try BlockCompressor(setting: setting)
        var blocks = [CompressedBlock?](repeating: nil, count: layout.count)
        try data.withUnsafeBytes { file in
            for index in order {
                let block = UnsafeRawBufferPointer(rebasing: file[intRange(layout.range(of: index))])
                let dictionary = UnsafeRawBufferPointer(
                    rebasing: file[intRange(layout.dictionaryRange(of: index))])
                blocks[index] = try compressor.compress(block, dictionary: dictionary,
                                                        isLast: layout.isLast(index))
            }
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

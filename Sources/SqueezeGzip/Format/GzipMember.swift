/// Builds a whole gzip member from an in-memory buffer: a worker's whole file of a batch, a
/// test's expected output.
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
        let blocks = try data.withUnsafeBytes { file in
            try compressBlocks(file, layout: layout, blocksPerSpan: perSpan, order: order, with: compressor)
        }
        var header = header
        if let perSpan {
            header.offsetTable = .of(blockLengths: blocks.map(\.bytes.count), blockSize: blockSize, blocksPerSpan: perSpan)
        }
        return assemble(header: header.encoded(), blocks: blocks).bytes
    }

    /// Compresses `data` into one gzip member with `compressor`, cut into blocks of `blockSize`
    /// bytes: byte for byte the member a cluster stitches from the same blocks, and the
    /// drop-in writes. `header` is the member's encoded header; when the member gets an offset
    /// table (`GzipOffsetTable.blocksPerSpan`), the header holds one of its shape with
    /// placeholder lengths, which are filled in here.
    /// - Returns: the member and its trailer (the CRC-32 and length of `data`).
    /// - Throws: `ZlibError` or `EngineError` from the compressor; `EngineError` when the
    ///   header's table is missing where the member needs one, or the wrong shape.
    public static func compress(_ data: UnsafeRawBufferPointer, blockSize: Int, header: [UInt8],
                                with compressor: BlockCompressor) throws -> (bytes: [UInt8], trailer: GzipTrailer) {
        let layout = BlockLayout(fileSize: UInt64(data.count), blockSize: blockSize)
        let perSpan = GzipOffsetTable.blocksPerSpan(for: layout, engine: compressor.setting.engine)
        let blocks = try compressBlocks(data, layout: layout, blocksPerSpan: perSpan, order: Array(0..<layout.count), with: compressor)
        var header = header
        let lengths = GzipOffsetTable.lengthsRange(in: header)
        if let perSpan {
            let table = GzipOffsetTable.of(blockLengths: blocks.map(\.bytes.count), blockSize: blockSize, blocksPerSpan: perSpan)
            guard let lengths, lengths.count == table.spanLengths.count * 4 else {
                throw EngineError(engine: compressor.setting.engine, operation: "member header", message: "no offset table of \(table.spanLengths.count) spans")
            }
            for (span, length) in table.spanLengths.enumerated() {
                for byte in 0..<4 { header[lengths.lowerBound + span * 4 + byte] = UInt8(truncatingIfNeeded: length >> (8 * byte)) }
            }
        } else if lengths != nil {
            throw EngineError(engine: compressor.setting.engine, operation: "member header", message: "an offset table in a member without one")
        }
        return assemble(header: header, blocks: blocks)
    }

    private static func compressBlocks(_ file: UnsafeRawBufferPointer, layout: BlockLayout, blocksPerSpan perSpan: Int?, order: [Int],
                                       with compressor: BlockCompressor) throws -> [CompressedBlock] {
        var blocks = [CompressedBlock?](repeating: nil, count: layout.count)
        for index in order {
            let block = UnsafeRawBufferPointer(rebasing: file[intRange(layout.range(of: index))])
            let restarts = perSpan.map { index % $0 == 0 } ?? false
            let dictionary = UnsafeRawBufferPointer(
                rebasing: file[restarts ? 0..<0 : intRange(layout.dictionaryRange(of: index))])
            blocks[index] = try compressor.compress(block, dictionary: dictionary, isLast: layout.isLast(index))
        }
        // Every index was visited, because `order` is a permutation.
        return blocks.map { block in
            guard let block else { preconditionFailure("block was not compressed") }
            return block
        }
    }

    private static func assemble(header: [UInt8], blocks: [CompressedBlock]) -> (bytes: [UInt8], trailer: GzipTrailer) {
        var member = header
        member.reserveCapacity(member.count + blocks.reduce(0) { $0 + $1.bytes.count } + GzipTrailer.size)
        var checksum = MemberChecksum()
        for block in blocks {
            member.append(contentsOf: block.bytes)
            checksum.append(crc: block.crc, length: block.rawLength)
        }
        member.append(contentsOf: checksum.trailer.encoded())
        return (member, checksum.trailer)
    }

    private static func intRange(_ range: Range<UInt64>) -> Range<Int> {
        Int(range.lowerBound)..<Int(range.upperBound)
    }
}

import SqueezeGzip
import SqueezeIO
import SqueezeProtocol
import SqueezeZMQ

/// Compresses work items for one slot, keeping one compressor per engine setting so streams
/// are reset, not rebuilt, between blocks. Not shared between slots.
struct ItemCompressor {
    private var compressors: [EngineSetting: BlockCompressor] = [:]
    /// Whether whole members get a lying offset table (`WorkerConfiguration.wholeTableLieForTesting`).
    private let wholeTableLieForTesting: Bool

    init(wholeTableLieForTesting: Bool = false) {
        self.wholeTableLieForTesting = wholeTableLieForTesting
    }

    private mutating func compressor(for setting: EngineSetting) throws -> BlockCompressor {
        if let existing = compressors[setting] { return existing }
        let compressor = try BlockCompressor(setting: setting)
        compressors[setting] = compressor
        return compressor
    }

    /// Compresses every block of `item`, checking `shouldStop` between blocks.
    mutating func compress(_ item: WorkAssignment, shouldStop: @Sendable () -> Bool) throws -> WorkResult? {
        let compressor = try compressor(for: item.setting)
        var blocks: [ResultBlock] = []
        blocks.reserveCapacity(item.blocks.count)
        for block in item.blocks {
            if shouldStop() { return nil }
            let compressed = try block.bytes.withUnsafeBytes { raw in
                try compressor.compress(
                    UnsafeRawBufferPointer(rebasing: raw[block.dictionaryLength...]),
                    dictionary: UnsafeRawBufferPointer(rebasing: raw[..<block.dictionaryLength]),
                    isLast: block.isLast
                )
            }
            blocks.append(ResultBlock(crc: compressed.crc, rawLength: compressed.rawLength, bytes: ZMQFrame(compressed.bytes)))
        }
        return WorkResult(jobID: item.jobID, itemID: item.itemID, blocks: blocks)
    }

    /// Reads each block of `item` from the shared file system, compresses it and writes it as
    /// a piece in the job's workspace. A block whose source cannot be read (it changed or went
    /// away) is reported as failed; any other error fails the item.
    mutating func compress(_ item: RefAssignment, phases: inout ItemPhases, shouldStop: @Sendable () -> Bool) throws -> RefResult? {
        let compressor = try compressor(for: item.setting)
        let workspace = BytePath(bytes: item.workspace)
        var pieces: [PieceReport] = []
        pieces.reserveCapacity(item.blocks.count)
        for (position, block) in item.blocks.enumerated() {
            if shouldStop() { return nil }
            let stamp = FileStamp(
                size: block.size, modifiedSeconds: block.modifiedSeconds, modifiedNanoseconds: block.modifiedNanoseconds,
                device: 0, inode: block.inode, permissions: block.permissions)
            let range = block.offset..<block.offset + UInt64(block.dictionaryLength + block.dataLength)
            let bytes: [UInt8]
            do {
                bytes = try phases.time(\.readMicros) {
                    // A block of a tar stream is made of its segments; any other, of its file's range.
                    if let segments = block.segments { return try SourceSegment.read(segments.map(\.source), matching: item.view.match) }
                    return try SourceReader.read(BytePath(bytes: block.path), expected: stamp, range: range, matching: item.view.match)
                }
            } catch let error as FileSystemError {
                pieces.append(PieceReport(failure: error.reason))
                continue
            }
            if let blocks = item.memberBlocks, let header = block.header, block.dataLength > blocks.blockSize {
                pieces.append(try compressWhole(bytes, blockSize: blocks.blockSize, header: header, stamp: stamp, position: position,
                                                of: item, with: compressor, phases: &phases))
                continue
            }
            if let placement = block.placement {
                pieces.append(try place(bytes, dictionaryLength: block.dictionaryLength, isLast: block.isLast, at: placement,
                                        file: Int(block.file), of: item, with: compressor, phases: &phases))
                continue
            }
            let compressed = try phases.time(\.compressMicros) {
                try bytes.withUnsafeBytes { raw in
                    try compressor.compress(
                        UnsafeRawBufferPointer(rebasing: raw[block.dictionaryLength...]),
                        dictionary: UnsafeRawBufferPointer(rebasing: raw[..<block.dictionaryLength]),
                        isLast: block.isLast)
                }
            }
            var chunks = [compressed.bytes]
            if let header = block.header {
                chunks = [header, compressed.bytes, GzipTrailer(crc: compressed.crc, inputLength: UInt64(compressed.rawLength)).encoded()]
            }
            let path = JobWorkspace.piecePath(in: workspace, item: item.itemID, attempt: item.attempt, position: position)
            try phases.time(\.writeMicros) {
                try PieceFile.write(path, chunks: chunks, member: block.header == nil ? nil : stamp, sync: item.syncPieces)
            }
            // A block of a multi-block file is stitched: what its segment is checked against
            // rests on its stored CRC, which this worker vouches for too. A whole member is not.
            pieces.append(PieceReport(
                crc: compressed.crc, rawLength: compressed.rawLength, pieceLength: UInt64(chunks.reduce(0) { $0 + $1.count }),
                storedCRC: block.header == nil ? CRC32.checksum(compressed.bytes) : nil))
        }
        return RefResult(jobID: item.jobID, itemID: item.itemID, attempt: item.attempt, pieces: pieces)
    }

    /// Compresses a batch's file of several blocks into its whole member, as the coordinator's
    /// stitch of the same blocks would be, and writes it as the piece of its position.
    private func compressWhole(
        _ bytes: [UInt8], blockSize: Int, header: [UInt8], stamp: FileStamp, position: Int, of item: RefAssignment,
        with compressor: BlockCompressor, phases: inout ItemPhases
    ) throws -> PieceReport {
        var member = try phases.time(\.compressMicros) {
            try bytes.withUnsafeBytes { try GzipMember.compress($0, blockSize: blockSize, header: header, with: compressor) }
        }
        if wholeTableLieForTesting, let lengths = GzipOffsetTable.lengthsRange(in: header), lengths.count >= 8 {
            // The first span one byte longer, the second one shorter: the same total.
            member.bytes[lengths.lowerBound] &+= 1
            member.bytes[lengths.lowerBound + 4] &-= 1
        }
        let path = JobWorkspace.piecePath(in: BytePath(bytes: item.workspace), item: item.itemID, attempt: item.attempt, position: position)
        try phases.time(\.writeMicros) { try PieceFile.write(path, chunks: [member.bytes], member: stamp, sync: item.syncPieces) }
        return PieceReport(crc: member.trailer.crc, rawLength: bytes.count, pieceLength: UInt64(member.bytes.count))
    }

    /// Writes a block straight into its file's output at the offset the coordinator gave.
    /// Stored blocks go out from the read buffer itself, framed by `pwritev`: no copy.
    private func place(
        _ bytes: [UInt8], dictionaryLength: Int, isLast: Bool, at placement: RefPlacement, file: Int, of item: RefAssignment,
        with compressor: BlockCompressor, phases: inout ItemPhases
    ) throws -> PieceReport {
        let path = JobWorkspace.stitchPath(in: BytePath(bytes: item.workspace), file: file, attempt: placement.attempt)
        return try bytes.withUnsafeBytes { raw in
            let data = UnsafeRawBufferPointer(rebasing: raw[dictionaryLength...])
            guard item.setting.engine == .stored else {
                let compressed = try phases.time(\.compressMicros) {
                    try compressor.compress(data, dictionary: UnsafeRawBufferPointer(rebasing: raw[..<dictionaryLength]), isLast: isLast)
                }
                try phases.time(\.writeMicros) {
                    try compressed.bytes.withUnsafeBytes { out in
                        try PieceFile.place(path, at: placement.offset, chunks: [out], sync: item.syncPieces)
                    }
                }
                return PieceReport(crc: compressed.crc, rawLength: compressed.rawLength, pieceLength: UInt64(compressed.bytes.count))
            }
            let segments = StoredBlocks.segments(rawLength: data.count, isLast: isLast)
            let headers = segments.flatMap(\.header)
            try headers.withUnsafeBytes { framing in
                var chunks: [UnsafeRawBufferPointer] = []
                chunks.reserveCapacity(segments.count * 2)
                for (number, segment) in segments.enumerated() {
                    let start = number * StoredBlocks.headerLength
                    chunks.append(UnsafeRawBufferPointer(rebasing: framing[start..<start + StoredBlocks.headerLength]))
                    chunks.append(UnsafeRawBufferPointer(rebasing: data[segment.range]))
                }
                try phases.time(\.writeMicros) { try PieceFile.place(path, at: placement.offset, chunks: chunks, sync: item.syncPieces) }
            }
            return PieceReport(crc: CRC32.checksum(data), rawLength: data.count,
                               pieceLength: UInt64(StoredBlocks.encodedLength(rawLength: data.count, isLast: isLast)))
        }
    }
}

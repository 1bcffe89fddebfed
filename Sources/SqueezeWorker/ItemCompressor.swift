import SqueezeGzip
import SqueezeProtocol

/// Compresses work items for one slot, keeping one compressor per engine setting so streams
/// are reset, not rebuilt, between blocks. Not shared between slots.
struct ItemCompressor {
    private var compressors: [EngineSetting: BlockCompressor] = [:]

    /// Compresses every block of `item`, checking `shouldStop` between blocks.
    mutating func compress(_ item: WorkAssignment, shouldStop: @Sendable () -> Bool) throws -> WorkResult? {
        let compressor: BlockCompressor
        if let existing = compressors[item.setting] {
            compressor = existing
        } else {
            compressor = try BlockCompressor(setting: item.setting)
            compressors[item.setting] = compressor
        }
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
            blocks.append(ResultBlock(crc: compressed.crc, rawLength: compressed.rawLength, bytes: compressed.bytes))
        }
        return WorkResult(jobID: item.jobID, itemID: item.itemID, blocks: blocks)
    }
}

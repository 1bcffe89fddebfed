import SqueezeGzip
import SqueezeProtocol

/// Cuts a job's files into work items: each block of a multi-block file is its own item, so a
/// large file spreads over every worker; single-block files are bundled until an item holds
/// about one block's worth of bytes, so small files cost one message per bundle, not per file.
enum Planner {
    static func items(for files: [PlannedFile], blockSize: Int) -> [PlannedItem] {
        var items: [PlannedItem] = []
        var bundle: [BlockRef] = []
        var bundleBytes = 0
        func closeBundle() {
            guard !bundle.isEmpty else { return }
            items.append(PlannedItem(id: UInt64(items.count), blocks: bundle, bytes: bundleBytes))
            bundle = []
            bundleBytes = 0
        }
        for file in files {
            let layout = file.layout
            if layout.count == 1 {
                let size = Int(layout.fileSize)
                if bundleBytes + size > blockSize || bundle.count >= ProtocolLimits.maxBlocksPerItem { closeBundle() }
                bundle.append(BlockRef(file: file.index, index: 0))
                bundleBytes += size
                continue
            }
            for index in 0..<layout.count {
                let range = layout.range(of: index)
                items.append(PlannedItem(
                    id: UInt64(items.count),
                    blocks: [BlockRef(file: file.index, index: index)],
                    bytes: Int(range.upperBound - range.lowerBound)))
            }
        }
        closeBundle()
        return items
    }
}

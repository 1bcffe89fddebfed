import SqueezeGzip
import SqueezeProtocol

/// Cuts a job's files into work items. A multi-block file becomes consecutive items of a few
/// consecutive blocks each (about `itemBytes`, but never so few items that the file cannot
/// spread over many workers); single-block files are bundled the same way, up to `itemBytes` or
/// less when the small files together are few. Each item costs the coordinator a dispatch and a result whatever its
/// size, so items are made as large as spreading the work allows.
enum Planner {
    /// A multi-block file is cut into at least this many items when it has the blocks for it.
    static let minimumItemsPerFile = 16
    /// The small files of a job make at least this many bundles when they hold enough bytes.
    static let minimumBundles = 64

    static func items(for files: [PlannedFile], blockSize: Int, itemBytes: Int) -> [PlannedItem] {
        var items: [PlannedItem] = []
        var bundle: [BlockRef] = []
        var bundleBytes = 0
        let target = bundleTarget(files: files, blockSize: blockSize, itemBytes: itemBytes)
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
                if bundleBytes + size > target || bundle.count >= ProtocolLimits.maxBlocksPerItem { closeBundle() }
                bundle.append(BlockRef(file: file.index, index: 0))
                bundleBytes += size
                continue
            }
            let span = blocksPerItem(blockCount: layout.count, blockSize: blockSize, itemBytes: itemBytes)
            for first in stride(from: 0, to: layout.count, by: span) {
                let last = min(first + span, layout.count) - 1
                let bytes = layout.range(of: last).upperBound - layout.range(of: first).lowerBound
                items.append(PlannedItem(
                    id: UInt64(items.count),
                    blocks: (first...last).map { BlockRef(file: file.index, index: $0) },
                    bytes: Int(bytes)))
            }
        }
        closeBundle()
        return items
    }

    /// Bytes a bundle of small files aims for: `itemBytes`, or less so that the job's small
    /// files still make `minimumBundles` bundles, but never less than a block.
    static func bundleTarget(files: [PlannedFile], blockSize: Int, itemBytes: Int) -> Int {
        let small = files.reduce(UInt64(0)) { $0 + ($1.layout.count == 1 ? $1.layout.fileSize : 0) }
        let spread = Int(clamping: small / UInt64(minimumBundles))
        return max(blockSize, min(itemBytes, spread))
    }

    /// How many consecutive blocks of a `blockCount`-block file one item carries: as many as
    /// fit in `itemBytes`, but few enough that the file still makes `minimumItemsPerFile` items.
    static func blocksPerItem(blockCount: Int, blockSize: Int, itemBytes: Int) -> Int {
        let bySize = max(1, itemBytes / max(blockSize, 1))
        let bySpread = max(1, blockCount / minimumItemsPerFile)
        return min(bySize, bySpread, ProtocolLimits.maxBlocksPerItem)
    }
}

import SqueezeGzip
import SqueezeProtocol

/// Cuts a job's files into work items as the scan finds them. A multi-block file becomes
/// consecutive items of a few consecutive blocks each (about `itemBytes`, but never so few items
/// that the file cannot spread over many workers), planned at once; the head of a large file
/// goes in items `headFactor` times as large, and only its last `tailItems` items are of the
/// plain size, so there are few items but workers still finish together. Single-block files wait in
/// a queue and are bundled: up to `itemBytes` each while the queue is large, and spread over at
/// least `minimumBundles` smaller bundles when it is flushed (the scan ended, or the workers
/// ran out of work). Each item costs the coordinator a dispatch and a result whatever its size,
/// so items are made as large as spreading the work allows. Item ids are consecutive from 0.
struct Planner: Sendable {
    /// A multi-block file is cut into at least this many items when it has the blocks for it.
    static let minimumItemsPerFile = 16
    /// How many times `itemBytes` an item at the head of a large file may carry. Each item
    /// costs the coordinator about the same whatever its size (two messages and their thread
    /// hand-offs), so large items are what keeps it cheap per byte (four times: a fifth less
    /// coordinator CPU per GB on shared storage than twice, measured). What remote items hold
    /// in memory is bounded by the dispatch window (`DispatchWindow`), not by their size.
    static let headFactor = 4
    /// A large file ends in this many items of the plain size: what is dispatched last is
    /// small, so no worker is left with a large item while the others idle.
    static let tailItems = 8
    /// Flushed small files make at least this many bundles when they hold enough bytes.
    static let minimumBundles = 64
    /// Small files queued beyond this many are bundled without waiting for more bytes.
    static let queuedFilesLimit = 1 << 16

    let blockSize: Int
    let itemBytes: Int
    /// Whether bundles are batches: items that carry their files (`PlannedItem.files`), so the
    /// job keeps no per-file state for them until something unusual happens to one.
    let batches: Bool
    /// The id the next item gets.
    private(set) var nextItem: ItemID = 0
    /// Small files not yet in a bundle, in scan order.
    private var queued: [(file: Int, size: Int)] = []
    /// The queued files themselves, in the same order, when bundles are batches.
    private var queuedPlans: [PlannedFile] = []
    private var queuedBytes = 0

    init(blockSize: Int, itemBytes: Int, batches: Bool = false) {
        self.blockSize = max(1, blockSize)
        self.itemBytes = max(1, itemBytes)
        self.batches = batches
    }

    /// Whether small files wait for a bundle.
    var hasQueued: Bool { !queued.isEmpty }

    /// Whether a file of `layout` waits for a bundle: one block, or, when bundles are batches,
    /// a file of several blocks of at most `wholeUpTo` bytes, which its batch's worker
    /// compresses whole (docs/architecture.md, "Whole files in batches").
    func bundles(_ layout: BlockLayout, wholeUpTo: UInt64) -> Bool {
        layout.count == 1 || (batches && layout.fileSize <= wholeUpTo)
    }

    /// Plans `files` (in scan order): their multi-block files' items, and full bundles once
    /// enough small files wait that bundles of `itemBytes` still make `minimumBundles`. Files
    /// of several blocks up to `wholeUpTo` bytes are bundled whole when bundles are batches.
    mutating func add(_ files: [PlannedFile], wholeUpTo: UInt64 = 0) -> [PlannedItem] {
        var items: [PlannedItem] = []
        for file in files {
            let layout = file.layout
            if bundles(layout, wholeUpTo: wholeUpTo) {
                queued.append((file.index, Int(layout.fileSize)))
                if batches { queuedPlans.append(file) }
                queuedBytes += Int(layout.fileSize)
                continue
            }
            for blocks in Self.shape(blockCount: layout.count, blockSize: blockSize, itemBytes: itemBytes).ranges {
                let bytes = layout.range(of: blocks.upperBound).upperBound - layout.range(of: blocks.lowerBound).lowerBound
                items.append(make(blocks.map { BlockRef(file: file.index, index: $0) }, bytes: Int(bytes)))
            }
        }
        if queuedBytes >= Self.minimumBundles * itemBytes {
            items += bundle(target: itemBytes, keepingPartial: true)
        } else if queued.count >= Self.queuedFilesLimit {
            items += flush()
        }
        return items
    }

    /// Bundles every queued small file in bundles of at most `most` bytes (`itemBytes` unless
    /// given), spread over `bundles` bundles (`minimumBundles` unless given) when they are few.
    mutating func flush(upTo most: Int? = nil, over bundles: Int = Planner.minimumBundles) -> [PlannedItem] {
        let target = Self.bundleTarget(smallBytes: UInt64(queuedBytes), blockSize: blockSize, itemBytes: most ?? itemBytes, bundles: bundles)
        return bundle(target: target, keepingPartial: false)
    }

    /// Bundles the queue in order, up to `target` bytes (and `maxBlocksPerItem` files) each;
    /// the last bundle stays queued when `keepingPartial` and it is short of `target`.
    private mutating func bundle(target: Int, keepingPartial: Bool) -> [PlannedItem] {
        var items: [PlannedItem] = []
        var bundle: [BlockRef] = []
        var bytes = 0
        var taken = 0
        for (position, entry) in queued.enumerated() {
            if !bundle.isEmpty, bytes + entry.size > min(target, ProtocolLimits.maxItemBytes) || bundle.count >= ProtocolLimits.maxBlocksPerItem {
                items.append(make(bundle, bytes: bytes, from: taken))
                bundle = []
                bytes = 0
                taken = position
            }
            bundle.append(BlockRef(file: entry.file, index: 0))
            bytes += entry.size
        }
        if keepingPartial && bytes < target {
            queued.removeFirst(taken)
            if batches { queuedPlans.removeFirst(taken) }
            queuedBytes = bytes
        } else {
            if !bundle.isEmpty { items.append(make(bundle, bytes: bytes, from: taken)) }
            queued.removeAll()
            queuedPlans.removeAll()
            queuedBytes = 0
        }
        return items
    }

    /// A bundle of the queued files from position `first` on: a batch holding the files
    /// themselves when bundles are batches.
    private mutating func make(_ bundle: [BlockRef], bytes: Int, from first: Int) -> PlannedItem {
        guard batches else { return make(bundle, bytes: bytes) }
        var item = make([], bytes: bytes)
        item.files = Array(queuedPlans[first..<first + bundle.count])
        return item
    }

    /// A scan item for `slice` (the next id): `bytes` is what its batch may reach, for its deadline.
    mutating func scanItem(_ slice: ScanSlice, bytes: Int) -> PlannedItem {
        var item = make([], bytes: bytes)
        item.scan = slice
        return item
    }

    private mutating func make(_ blocks: [BlockRef], bytes: Int) -> PlannedItem {
        defer { nextItem = nextItem.advanced(by: 1) }
        return PlannedItem(id: nextItem, blocks: blocks, bytes: bytes)
    }

    /// Every item for `files` at once: what a job whose scan ends with them gets.
    static func items(for files: [PlannedFile], blockSize: Int, itemBytes: Int) -> [PlannedItem] {
        var planner = Planner(blockSize: blockSize, itemBytes: itemBytes)
        return planner.add(files) + planner.flush()
    }

    /// Bytes a bundle of small files aims for when they are flushed: `itemBytes`, or less so
    /// that they still make `bundles` bundles, but never less than a block.
    static func bundleTarget(smallBytes: UInt64, blockSize: Int, itemBytes: Int, bundles: Int = minimumBundles) -> Int {
        let spread = Int(clamping: smallBytes / UInt64(max(1, bundles)))
        return max(blockSize, min(itemBytes, spread))
    }

    /// How a `blockCount`-block file is cut: a head of wide items (up to `headFactor` times
    /// the plain span, never fewer than `minimumItemsPerFile` items over the file), then at
    /// least `tailItems` items of the plain span, the last one shorter.
    static func shape(blockCount: Int, blockSize: Int, itemBytes: Int) -> ItemShape {
        guard blockCount > 1 else { return .single }
        let span = blocksPerItem(blockCount: blockCount, blockSize: blockSize, itemBytes: itemBytes)
        let wide = min(span * headFactor, max(span, blockCount / minimumItemsPerFile), maxBlocks(blockSize: blockSize))
        let tail = min(blockCount, span * tailItems)
        // Whole wide items only: what does not fill one joins the tail.
        return ItemShape(blockCount: blockCount, wide: wide, headBlocks: (blockCount - tail) / wide * wide, span: span)
    }

    /// How many consecutive blocks a plain item of a `blockCount`-block file carries: as many as
    /// fit in `itemBytes`, but few enough that the file still makes `minimumItemsPerFile` items.
    static func blocksPerItem(blockCount: Int, blockSize: Int, itemBytes: Int) -> Int {
        let bySize = max(1, itemBytes / max(blockSize, 1))
        let bySpread = max(1, blockCount / minimumItemsPerFile)
        return min(bySize, bySpread, maxBlocks(blockSize: blockSize))
    }

    /// The most blocks of `blockSize` bytes one item may carry: the protocol's block count and
    /// item size (`ProtocolLimits.maxItemBytes`), so every `work` and `result` is within the bound
    /// its receiver holds it to, whatever `itemBytes` asks.
    static func maxBlocks(blockSize: Int) -> Int {
        min(ProtocolLimits.maxBlocksPerItem, max(1, ProtocolLimits.maxItemBytes / max(blockSize, 1)))
    }
}

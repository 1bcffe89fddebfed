import SqueezeGzip

/// How a multi-block `stored` file is written in place: each block straight into the file's
/// output at an offset known in advance, by whichever shared-storage worker compresses it,
/// so nothing is stitched afterwards.
///
/// Fencing: a block written in place has no attempt of its own in its name, so a dispatch
/// that was lost (a worker declared dead, a result dropped) may still write into the output
/// later. The first time any item of the file is dispatched again, placement is `broken`:
/// from then on a writer joins the file into a new temporary (the blocks already placed are
/// copied from their ranges), and the placed output, where a late write may land, is never
/// published.
struct Placement: Sendable {
    /// The output's attempt number (it names `s<file>-<attempt>` in the workspace).
    let output: AttemptID
    /// The gzip header's length: where block 0 starts.
    let headerLength: Int
    /// Items dispatched in place so far.
    var items: Set<ItemID> = []
    /// An item was dispatched a second time: the output may receive a late write.
    var broken = false
    /// Blocks whose answers are accepted (each written in place).
    var blocksIn = 0

    /// Whether item `item`'s dispatch writes in place: its first dispatch does, unless the
    /// placement is broken; a second dispatch of any item breaks it (a lost dispatch may still
    /// write). Returns false from then on.
    mutating func admit(item: ItemID) -> Bool {
        guard !broken else { return false }
        if items.insert(item).inserted { return true }
        broken = true
        return false
    }

    /// Where block `index` of a file laid out as `layout` starts in the output: every block
    /// before it is a full one, framed as `StoredBlocks`.
    func offset(of index: Int, in layout: BlockLayout) -> UInt64 {
        UInt64(headerLength) + UInt64(index) * UInt64(StoredBlocks.encodedLength(rawLength: layout.blockSize, isLast: false))
    }

    /// The output's length without its trailer, once every block is in.
    func end(of layout: BlockLayout) -> UInt64 {
        let lastIndex = layout.count - 1
        let last = layout.range(of: lastIndex)
        return offset(of: lastIndex, in: layout) + UInt64(StoredBlocks.encodedLength(rawLength: Int(last.upperBound - last.lowerBound), isLast: true))
    }

    /// Whether files of this job are placed: multi-block, compressed by an engine whose
    /// output length is known in advance.
    static func applies(to layout: BlockLayout, setting: EngineSetting) -> Bool {
        setting.engine == .stored && layout.count > 1
    }
}

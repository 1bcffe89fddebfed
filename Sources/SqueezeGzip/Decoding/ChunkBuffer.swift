/// Memory a chunk of `ParallelGzipDecoder` inflates into, kept from chunk to chunk: fresh
/// pages cost a fault each (on this kind of VM, more than inflating into them), so one
/// buffer per slot is reused. Both its buffers are reserved at their largest at once:
/// untouched pages cost nothing, touched ones are kept, and no chunk that outgrows the last
/// one is copied into a larger buffer (grown by doubling, a level-6 file's chunks of text cost
/// a third of the decoder's page faults in copies, measured). In ordinary pages: huge ones
/// (`MADV_HUGEPAGE`) made `make bench`'s way-back rounds 6-8 % slower at levels 6 and 1 once
/// other tools had run in them (the kernel compacts memory to find 2 MiB). One thread at a time.
final class ChunkBuffer: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    /// The compressed chunk, read here before it is inflated: whole (a table's chunk, for
    /// libdeflate) or a piece at a time (ISA-L).
    private let inputStorage: UnsafeMutableRawBufferPointer
    /// Bytes of the current chunk in `storage`.
    var count = 0
    /// The most it holds.
    var limit: Int { storage.count }
    /// The most input it holds.
    var inputLimit: Int { inputStorage.count }

    /// A buffer of `limit` output bytes and `maxInput` input bytes.
    init(limit: Int, maxInput: Int) {
        storage = Self.reserve(limit)
        inputStorage = Self.reserve(maxInput)
    }

    deinit {
        storage.deallocate()
        inputStorage.deallocate()
    }

    private static func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 64)
    }

    /// Room for `count` bytes of input; nil when it is more than the buffer takes.
    func input(_ count: Int) -> UnsafeMutableRawBufferPointer? {
        guard count <= inputStorage.count else { return nil }
        return UnsafeMutableRawBufferPointer(rebasing: inputStorage[0..<count])
    }

    /// The chunk's bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    /// Room after `count`; nil once the chunk fills the buffer.
    func room() -> UnsafeMutableRawBufferPointer? {
        guard count < storage.count else { return nil }
        return UnsafeMutableRawBufferPointer(rebasing: storage[count...])
    }
}

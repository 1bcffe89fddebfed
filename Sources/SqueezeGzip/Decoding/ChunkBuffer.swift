/// Memory a chunk of `ParallelGzipDecoder` inflates into, kept from chunk to chunk: fresh
/// pages cost a fault each (on this kind of VM, more than inflating into them), so one
/// buffer per slot is grown once and reused. One thread at a time.
final class ChunkBuffer: @unchecked Sendable {
    private(set) var storage: UnsafeMutableRawBufferPointer
    /// The compressed chunk, read here before it is inflated.
    private var inputStorage = UnsafeMutableRawBufferPointer.allocate(byteCount: 1, alignment: 64)
    /// Bytes of the current chunk in `storage`.
    var count = 0
    /// The most it grows to.
    let limit: Int

    init(capacity: Int, limit: Int) {
        storage = .allocate(byteCount: max(1, min(capacity, limit)), alignment: 64)
        self.limit = limit
    }

    deinit {
        storage.deallocate()
        inputStorage.deallocate()
    }

    /// Room for `count` bytes of input, grown when it is smaller.
    func input(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if inputStorage.count < count {
            inputStorage.deallocate()
            inputStorage = .allocate(byteCount: max(1, count), alignment: 64)
        }
        return UnsafeMutableRawBufferPointer(rebasing: inputStorage[0..<count])
    }

    /// The chunk's bytes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    /// Room after `count`: doubles the storage (keeping the bytes) when it is full, nil once
    /// it is at `limit`.
    func room() -> UnsafeMutableRawBufferPointer? {
        if count == storage.count {
            guard storage.count < limit else { return nil }
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(storage.count * 2, limit), alignment: 64)
            larger.copyMemory(from: UnsafeRawBufferPointer(storage))
            storage.deallocate()
            storage = larger
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[count...])
    }
}

/// Builds a message's bytes, little-endian, in one buffer it grows itself: a field is one
/// store, not an array append (a batch's table is half a dozen fields a file, and the appends'
/// checks were a few per cent of a coordinator's CPU on small files). Not copyable: one owner
/// frees the buffer.
struct ByteWriter: ~Copyable {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes written.
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = max(16, capacity)
        storage = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit {
        storage.deallocate()
    }

    /// What was written, as an array (one copy).
    var bytes: [UInt8] {
        [UInt8](UnsafeRawBufferPointer(start: storage, count: count))
    }

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        reserve(size)
        // Unaligned stores are allowed for trivial types (SE-0349).
        storage.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += size
    }

    mutating func write(_ raw: [UInt8]) {
        guard !raw.isEmpty else { return }
        reserve(raw.count)
        raw.withUnsafeBytes { source in
            if let base = source.baseAddress { (storage + count).copyMemory(from: base, byteCount: source.count) }
        }
        count += raw.count
    }

    /// Room for `more` bytes after `count`, doubling as needed. Messages are bounded far below
    /// `Int.max` by the protocol's limits, so the doubling cannot overflow.
    private mutating func reserve(_ more: Int) {
        guard capacity - count < more else { return }
        var grown = capacity * 2
        while grown - count < more { grown *= 2 }
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        fresh.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = fresh
        capacity = grown
    }
}

import CZlib

/// One zlib stream, set up for deflate or inflate and ended when released.
///
/// Heap-allocated because zlib's state keeps a back pointer to the `z_stream` and rejects it
/// (Z_STREAM_ERROR) if the struct ever moves.
final class ZlibStream {
    /// The stream, valid for this object's life.
    let pointer: UnsafeMutablePointer<z_stream>
    private let isDeflate: Bool

    /// A deflate stream: `deflateInit2` at `level`, `windowBits`, memLevel 8, default strategy.
    init(deflateLevel level: Int32, windowBits: Int32) throws {
        pointer = Self.allocate()
        isDeflate = true
        try start("deflateInit2", squeeze_deflateInit2(pointer, level, windowBits, 8, Z_DEFAULT_STRATEGY))
    }

    /// An inflate stream: `inflateInit2` with `windowBits`.
    init(inflateWindowBits windowBits: Int32) throws {
        pointer = Self.allocate()
        isDeflate = false
        try start("inflateInit2", squeeze_inflateInit2(pointer, windowBits))
    }

    deinit {
        _ = isDeflate ? deflateEnd(pointer) : inflateEnd(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    private static func allocate() -> UnsafeMutablePointer<z_stream> {
        let pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())  // zalloc/zfree/opaque nil: zlib's default allocator
        return pointer
    }

    /// Throws for a failed init. Every stored property is set by then, so deinit still runs:
    /// ending a stream whose init failed is a harmless Z_STREAM_ERROR (zlib left no state).
    private func start(_ operation: String, _ status: Int32) throws {
        guard status == Z_OK else { throw ZlibError(operation: operation, code: status, stream: pointer) }
    }
}

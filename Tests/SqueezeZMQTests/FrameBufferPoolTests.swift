import Testing
@testable import SqueezeZMQ

private struct FillFailed: Error {}

@Suite("FrameBufferPool")
struct FrameBufferPoolTests {
    @Test("a filled buffer comes back to the pool once its last frame is gone, and is reused")
    func returnsOnceAndIsReused() {
        let pool = FrameBufferPool(keepingBytes: 1 << 20)
        var bytes: FrameBytes? = pool.fill(count: 1000) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index) }
            return 900
        }
        #expect(bytes?.count == 900)
        var frames = bytes.map { [ZMQFrame($0, range: 0..<500), ZMQFrame($0, range: 400..<900)] } ?? []
        bytes = nil
        #expect(pool.idleBuffers == 0, "frames still hold the buffer")
        #expect(frames[1].first == UInt8(truncatingIfNeeded: 400))
        frames.removeFirst()
        #expect(pool.idleBuffers == 0)
        frames.removeAll()
        #expect(pool.idleBuffers == 1)
        #expect(pool.idleBytes == FrameBufferPool.granule)

        let again = pool.fill(count: 2000) { _ in 2000 }
        #expect(pool.idleBuffers == 0)
        #expect(pool.counts.created == 1)
        #expect(pool.counts.reused == 1)
        _ = again
    }

    @Test("a fill that throws gives its buffer back at once")
    func throwingFill() {
        let pool = FrameBufferPool(keepingBytes: 1 << 20)
        #expect(throws: FillFailed.self) {
            _ = try pool.fill(count: 10) { _ throws(FillFailed) in throw FillFailed() }
        }
        #expect(pool.idleBuffers == 1)
    }

    @Test("idle buffers stay within the bound")
    func bounded() {
        let granule = FrameBufferPool.granule
        let pool = FrameBufferPool(keepingBytes: 3 * granule)
        var held = (0..<3).map { _ in pool.fill(count: granule) { $0.count } }
        held.append(pool.fill(count: 2 * granule) { $0.count })
        held.removeAll()
        #expect(pool.idleBytes <= 3 * granule)
        #expect(pool.idleBuffers == 3)
    }

    @Test("a request takes the smallest idle buffer that fits, however large, rather than a new one")
    func smallestFit() {
        let granule = FrameBufferPool.granule
        let pool = FrameBufferPool(keepingBytes: 64 * granule)
        var held = [8, 4, 16].map { size in pool.fill(count: size * granule) { $0.count } }
        held.removeAll()
        #expect(pool.idleBytes == 28 * granule)

        // One granule: the 4-granule buffer, the smallest of the three.
        var small: FrameBytes? = pool.fill(count: granule) { $0.count }
        #expect(pool.counts.created == 3)
        #expect(pool.idleBytes == 24 * granule)
        // Nine granules: only the 16-granule buffer fits.
        var middle: FrameBytes? = pool.fill(count: 9 * granule) { $0.count }
        #expect(pool.idleBytes == 8 * granule)
        // Nine again: nothing idle fits any more (8 granules is too small), so a new buffer.
        var fresh: FrameBytes? = pool.fill(count: 9 * granule) { $0.count }
        #expect(pool.counts.created == 4)
        #expect(pool.counts.reused == 2)
        #expect(pool.idleBytes == 8 * granule)
        small = nil
        middle = nil
        fresh = nil
        #expect(pool.idleBytes == (8 + 4 + 16 + 9) * granule)
        #expect(small == nil && middle == nil && fresh == nil)
    }
}

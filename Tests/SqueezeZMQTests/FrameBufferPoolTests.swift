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

    @Test("idle buffers stay within the bound; a small request does not pin a big buffer")
    func bounded() {
        let granule = FrameBufferPool.granule
        let pool = FrameBufferPool(keepingBytes: 3 * granule)
        var held = (0..<3).map { _ in pool.fill(count: granule) { $0.count } }
        held.append(pool.fill(count: 2 * granule) { $0.count })
        held.removeAll()
        #expect(pool.idleBytes <= 3 * granule)
        #expect(pool.idleBuffers == 3)

        let big = FrameBufferPool(keepingBytes: 64 * granule)
        _ = big.fill(count: 8 * granule) { $0.count }
        #expect(big.idleBuffers == 1)
        _ = big.fill(count: granule) { $0.count }
        #expect(big.counts.created == 2, "an 8-granule buffer is not handed out for one granule")
        #expect(big.idleBuffers == 2)
    }
}

import Glibc
import NIOConcurrencyHelpers

/// Reusable memory for frames that are filled once and then sent without copying (a
/// coordinator's blocks read from disk): a `FrameBytes` made here gives its buffer back when
/// the last frame over it is gone, which for a sent frame happens in libzmq's free callback,
/// on libzmq's I/O thread. The idle buffers sit behind a pthread lock (`NIOLockedValueBox`),
/// which Thread Sanitizer understands.
///
/// Bounded: the pool keeps at most `keepingBytes` of idle buffers and frees what would go
/// over. It never makes a caller wait; what is out at once is bounded by whoever takes
/// buffers (the coordinator's credit and readers). Reused buffers are already faulted in, so
/// an item costs no fresh pages.
public final class FrameBufferPool: Sendable {
    /// An idle buffer. `@unchecked Sendable`: idle buffers are referenced by the pool alone,
    /// only inside its lock, so the pointer is never shared between threads while it is here.
    private struct IdleBuffer: @unchecked Sendable {
        var pointer: UnsafeMutableRawPointer
        var capacity: Int
    }

    private struct Idle {
        var buffers: [IdleBuffer] = []
        var bytes = 0
        var created = 0
        var reused = 0
    }

    /// Buffers are made in multiples of this, so items of slightly different sizes (a file's
    /// last item, a dictionary more or less) share them.
    public static let granule = 64 << 10
    /// Most bytes of idle buffers kept for reuse.
    public let keepingBytes: Int
    private let idle = NIOLockedValueBox(Idle())

    /// A pool that keeps at most `keepingBytes` of idle buffers.
    public init(keepingBytes: Int) {
        self.keepingBytes = max(0, keepingBytes)
    }

    deinit {
        // Buffers still out hold the pool (`FrameBytes` retains it), so only idle ones are left.
        idle.withLockedValue { idle in
            for buffer in idle.buffers { buffer.pointer.deallocate() }
            idle.buffers.removeAll()
        }
    }

    /// Idle bytes held now (for tests and diagnostics).
    public var idleBytes: Int { idle.withLockedValue { $0.bytes } }

    /// Idle buffers held now (for tests and diagnostics).
    public var idleBuffers: Int { idle.withLockedValue { $0.buffers.count } }

    /// Buffers allocated and buffers reused since the pool was made (for tests and diagnostics).
    public var counts: (created: Int, reused: Int) { idle.withLockedValue { ($0.created, $0.reused) } }

    /// Gives `fill` a buffer of exactly `count` bytes to write, then freezes what it wrote:
    /// `fill` returns how many leading bytes are valid (at most `count`). The result is
    /// immutable from here on; its buffer comes back to the pool when it goes. If `fill`
    /// throws, the buffer comes back at once.
    public func fill<E: Error>(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) -> FrameBytes {
        precondition(count >= 0, "negative buffer size")
        let (pointer, capacity) = take(capacity: max(Self.granule, (count + Self.granule - 1) / Self.granule * Self.granule))
        let valid: Int
        do {
            valid = try fill(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        } catch {
            giveBack(pointer, capacity: capacity)
            throw error
        }
        precondition((0...count).contains(valid), "fill reported \(valid) bytes of \(count)")
        return FrameBytes(base: pointer, count: valid, origin: .pooled(self, capacity: capacity))
    }

    /// The smallest idle buffer of at least `capacity` bytes, however much larger; otherwise a
    /// new one. Taking an idle buffer never adds memory, only a new one does: a file's small
    /// last items reuse its big head buffers instead of faulting in fresh pages (one 468 MB
    /// file sent to remote workers: 16 buffers made before, 4 after). Returns the buffer and
    /// its real capacity, which is what goes back to the pool.
    private func take(capacity: Int) -> (UnsafeMutableRawPointer, Int) {
        let reused: IdleBuffer? = idle.withLockedValue { idle in
            var best: Int?
            for (index, buffer) in idle.buffers.enumerated() where buffer.capacity >= capacity {
                if best.map({ buffer.capacity < idle.buffers[$0].capacity }) ?? true { best = index }
            }
            guard let best else {
                idle.created += 1
                return nil
            }
            let buffer = idle.buffers.remove(at: best)
            idle.bytes -= buffer.capacity
            idle.reused += 1
            return buffer
        }
        if let reused { return (reused.pointer, reused.capacity) }
        return (Self.allocate(capacity: capacity), capacity)
    }

    /// Huge pages, where a buffer spans some: a fresh buffer of several MiB otherwise costs a
    /// page fault per 4 KiB as it is first filled (about a third of a remote item's cost to a
    /// coordinator that has just started, measured); with 2 MiB pages, one per 2 MiB.
    static let hugePage = 2 << 20

    /// A new buffer: page-aligned (the kernel copies whole pages to and from it), aligned to
    /// and advised for huge pages when it spans one. The advice is a hint; where the kernel
    /// has no transparent huge pages it is refused, and the buffer works the same.
    private static func allocate(capacity: Int) -> UnsafeMutableRawPointer {
        guard capacity >= hugePage else { return UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 4096) }
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: hugePage)
        _ = madvise(pointer, capacity, MADV_HUGEPAGE)
        return pointer
    }

    /// Takes a buffer back (from `FrameBytes.deinit`, on whatever thread dropped the last
    /// reference); frees it when keeping it would pass the bound.
    func giveBack(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        let kept = idle.withLockedValue { idle in
            guard idle.bytes + capacity <= keepingBytes else { return false }
            idle.buffers.append(IdleBuffer(pointer: pointer, capacity: capacity))
            idle.bytes += capacity
            return true
        }
        if !kept { pointer.deallocate() }
    }
}

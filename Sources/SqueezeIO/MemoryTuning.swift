import CSqueezeSystem

/// glibc malloc settings for a process that allocates and frees megabyte buffers at a high rate
/// (blocks read, compressed, sent and written).
public enum MemoryTuning {
    /// By default glibc serves blocks of a few MiB with a fresh `mmap` once its threshold
    /// adapts, and trims freed heap back to the kernel: every item then pays page faults and
    /// the zeroing of new pages, measured at several percent of the coordinator's CPU in remote
    /// mode. A fixed threshold above the largest item buffer, and a trim threshold that keeps
    /// that much freed memory for reuse, make buffers recycle instead. Memory stays bounded by
    /// the dispatch window plus this slack.
    /// Applies the settings to this process; returns whether glibc took them.
    @discardableResult
    public static func apply() -> Bool {
        squeeze_tune_malloc(32 << 20, 64 << 20) == 1
    }

    /// glibc gives threads up to eight arenas per core, each keeping up to the trim threshold
    /// of freed memory, so a process whose threads take turns with the same work (the
    /// coordinator: actor, readers, writers, endpoints) holds freed memory many times over.
    /// With two arenas, the coordinator of a job of a million small files peaked at 124 MiB
    /// instead of 212, and was no slower (125 s against 126). Call it before threads start.
    /// Returns whether glibc took it.
    @discardableResult
    public static func limitArenas(_ arenas: Int) -> Bool {
        squeeze_limit_malloc_arenas(Int32(clamping: max(1, arenas))) == 1
    }
}

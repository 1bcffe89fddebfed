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
}

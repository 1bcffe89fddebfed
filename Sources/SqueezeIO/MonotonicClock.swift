import Glibc

/// This host's monotonic clock in microseconds (`CLOCK_MONOTONIC`): the time base of item
/// timings and traces. Never jumps with the wall clock; differs between hosts (and between
/// boots), so peers exchange it with an offset, never as an absolute time.
public enum MonotonicClock {
    /// Microseconds since an arbitrary point fixed at boot.
    public static func micros() -> Int64 {
        var spec = timespec()
        // CLOCK_MONOTONIC cannot fail on Linux with a valid pointer; zero keeps it total.
        guard clock_gettime(CLOCK_MONOTONIC, &spec) == 0 else { return 0 }
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
    }
}

import Glibc

/// CPU time this process has used, every thread counted (exited ones too), to the microsecond:
/// `/proc/PID/stat` rounds to clock ticks (10 ms), too coarse for a coordinator that spends a
/// few tens of milliseconds on a whole job.
public enum ProcessCPU {
    /// User plus system seconds since the process started; nil if the kernel will not say.
    public static func seconds() -> Double? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

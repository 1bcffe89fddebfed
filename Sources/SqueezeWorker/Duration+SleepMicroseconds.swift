extension Duration {
    /// A test delay in microseconds for `usleep` on a worker's own thread, clamped to an hour
    /// before multiplying: a flag's value must not overflow.
    var sleepMicroseconds: UInt32 {
        UInt32(clamping: min(max(components.seconds, 0), 3600) * 1_000_000 + components.attoseconds / 1_000_000_000_000)
    }
}

import Foundation

/// The default relay budget: how many bytes of items that travel in messages (remote workers)
/// the coordinator may hold at once. An eighth of the memory it may use, so a coordinator on
/// a larger machine feeds more remote workers at once; never under 64 MiB (four 16 MiB items,
/// what two workers need) nor over 4 GiB.
enum RelayBudget {
    /// The least default: four of the largest items.
    static let floor = 64 << 20
    /// The most default; more is a deliberate `--relay-memory`.
    static let ceiling = 4 << 30

    /// The default for `physical` bytes of memory, of which a control group lets this process
    /// use `limit` (nil: no limit).
    static func defaultBytes(physical: UInt64, limit: UInt64?) -> Int {
        let usable = min(physical, limit ?? .max)
        let eighth = usable / 8
        return Int(min(max(eighth, UInt64(floor)), UInt64(ceiling)))
    }

    /// The default on this machine: its memory, and a container's limit when one is set.
    static var machineDefault: Int {
        defaultBytes(physical: ProcessInfo.processInfo.physicalMemory, limit: cgroupLimit())
    }

    /// The memory limit of this process's cgroup as a container sees it (v2 `memory.max`, v1
    /// `memory.limit_in_bytes`), when it is a number ("max" is none).
    private static func cgroupLimit() -> UInt64? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return nil
    }
}

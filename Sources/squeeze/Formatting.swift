import Foundation

/// Human-readable numbers for the live view and summaries.
enum Formatting {
    /// 1234567 -> "1.2 MB" (decimal units, like MB/s).
    static func bytes(_ value: UInt64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1000 && unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        return unit == 0 ? "\(value) B" : String(format: "%.1f %@", amount, units[unit])
    }

    /// Seconds as "4s", "3m05s", "1h02m".
    static func duration(_ seconds: Double) -> String {
        // From the network: a value beyond Int's range would trap the conversion.
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return "--" }
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total)s" }
        if total < 3600 { return String(format: "%dm%02ds", total / 60, total % 60) }
        return String(format: "%dh%02dm", total / 3600, (total % 3600) / 60)
    }

    /// Seconds since 1970 as local "2026-11-22 14:05"; "--" when out of range.
    static func date(_ secondsSince1970: Double) -> String {
        guard secondsSince1970.isFinite, (0..<1e11).contains(secondsSince1970) else { return "--" }
        var time = time_t(secondsSince1970)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return "--" }
        return String(format: "%04d-%02d-%02d %02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min))
    }

    /// A bar of `width` cells for `fraction` (0...1).
    static func bar(_ fraction: Double, width: Int) -> String {
        let clamped = min(max(fraction.isFinite ? fraction : 0, 0), 1)
        let filled = Int((clamped * Double(width)).rounded(.down))
        return String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    }

    /// MB/s given bytes over seconds.
    static func rate(_ bytes: UInt64, _ seconds: Double) -> String {
        guard seconds > 0 else { return "-- MB/s" }
        return String(format: "%.1f MB/s", Double(bytes) / seconds / 1_000_000)
    }
}

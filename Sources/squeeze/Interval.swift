import ArgumentParser

/// A time argument such as `250ms`, `1s`, `1.5s`, `10m`, `12h` or `30d` (a bare number is seconds).
struct Interval: ExpressibleByArgument, Sendable {
    /// The parsed duration.
    let duration: Duration

    /// Seconds per unit, by suffix; "ms" is tried before "m" and "s".
    private static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]

    init?(argument: String) {
        let text = argument.lowercased()
        let unit = Self.units.first { text.hasSuffix($0.suffix) }
        let number = text.dropLast(unit?.suffix.count ?? 0)
        let scale = unit?.seconds ?? 1
        // Bounded before the conversion: a huge number would trap converting to Int64.
        guard let value = Double(number), value > 0, value.isFinite, value * scale <= 1e9 else { return nil }
        duration = .milliseconds(Int64((value * scale * 1000).rounded()))
        guard duration > .zero else { return nil }
    }
}

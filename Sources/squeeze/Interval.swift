import ArgumentParser

/// A time argument such as `250ms`, `1s` or `1.5s` (a bare number is seconds).
struct Interval: ExpressibleByArgument, Sendable {
    /// The parsed duration.
    let duration: Duration

    init?(argument: String) {
        let text = argument.lowercased()
        let number: Substring
        let scale: Double
        if text.hasSuffix("ms") {
            number = text.dropLast(2)
            scale = 0.001
        } else if text.hasSuffix("s") {
            number = text.dropLast()
            scale = 1
        } else {
            number = Substring(text)
            scale = 1
        }
        // Bounded before the conversion: a huge number would trap converting to Int64.
        guard let value = Double(number), value > 0, value.isFinite, value * scale <= 1e9 else { return nil }
        duration = .milliseconds(Int64((value * scale * 1000).rounded()))
        guard duration > .zero else { return nil }
    }
}

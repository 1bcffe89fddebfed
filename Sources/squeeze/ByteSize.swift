import ArgumentParser

/// A size argument such as `512K`, `1M` or `1048576`.
struct ByteSize: ExpressibleByArgument, Sendable {
    /// The size in bytes.
    let bytes: Int

    init?(argument: String) {
        let text = argument.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let multiplier: Int
        var digits = Substring(text)
        switch text.last {
        case "K": multiplier = 1 << 10; digits = digits.dropLast()
        case "M": multiplier = 1 << 20; digits = digits.dropLast()
        case "G": multiplier = 1 << 30; digits = digits.dropLast()
        default: multiplier = 1
        }
        guard let value = Int(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = product
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    var secondsValue: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}

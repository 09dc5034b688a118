extension Duration {
    /// The duration in milliseconds, fractions included: for reports (`tsec get --json`, the
    /// timing in logs) and backoff arithmetic.
    package var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    /// `0.25 s`, `12 s`: whole seconds and as many decimals as the milliseconds need.
    package var formattedSeconds: String {
        let (seconds, attoseconds) = components
        var whole = seconds
        var milliseconds = (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000
        if milliseconds == 1_000 { (whole, milliseconds) = (whole + 1, 0) }
        guard milliseconds != 0 else { return "\(whole) s" }
        var decimals = String(milliseconds)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals) s"
    }
}

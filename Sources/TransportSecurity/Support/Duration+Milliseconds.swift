extension Duration {
    /// The duration in milliseconds, fractions included: for reports (`tsec get --json`, the
    /// timing in logs) and backoff arithmetic.
    package var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }
}

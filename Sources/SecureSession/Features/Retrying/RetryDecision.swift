/// What a ``RequestInterceptor`` decided after an attempt.
public enum RetryDecision: Sendable, Hashable {
    /// The attempt's outcome is the request's: its response goes to the caller, its error is
    /// thrown.
    case doNotRetry
    /// Send the request again after waiting this long (zero: at once).
    case retry(after: Duration)
}

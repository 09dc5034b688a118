import ArgumentParser
import SecureSession

/// `tsec get`'s `--retry`, `--retry-delay`, `--retry-max-time`, `--retry-all-errors` and
/// `--retry-connrefused`, as curl's, made into a ``RetryPolicy``.
struct RetryOptions: ParsableArguments {
    /// The longest wait between attempts, as curl's backoff.
    static let longestWait: Duration = .seconds(600)

    @Option(name: .customLong("retry"), help: ArgumentHelp(
        "Try again, up to N times, after a transient failure: HTTP 408, 429, 500, 502, 503 or 504, a connection refused or broken, a timeout (curl's --retry). Waits 1 s, then twice as long each time up to 10 minutes, or longer when the server's Retry-After (else its RateLimit fields) asks. A request that is not idempotent (POST, PATCH) is tried again only when no connection could be made, unless it carries an idempotency key (--idempotency-key, or -H 'Idempotency-Key: …'), which also makes a 409 worth another try; a body already printed is never printed twice (-o files start over).",
        valueName: "N"
    ))
    var retries: Int = 0

    @Option(name: .customLong("retry-delay"), help: ArgumentHelp("Wait this many seconds before every retry instead of the doubling backoff.", valueName: "SECONDS"))
    var delay: Double?

    @Option(name: .customLong("retry-max-time"), help: ArgumentHelp("Begin no retry whose wait would end later than this many seconds after the first attempt began.", valueName: "SECONDS"))
    var maximumTime: Double?

    @Flag(name: .customLong("retry-all-errors"), help: "With --retry, try again after any failure a retry can change, whatever the method (a POST too, although it may have been processed), and, with -f or --fail-with-body, after any HTTP status of 400 or more (curl's --retry-all-errors). A rejected server certificate or a TLS failure is still never tried again.")
    var allErrors = false

    @Flag(name: .customLong("retry-connrefused"), help: "Accepted for curl's scripts: --retry tries a refused connection again anyway.")
    var connectionRefused = false

    /// Refuses counts and times that cannot be meant.
    func validate() throws {
        guard (0...1_000).contains(retries) else { throw ValidationError("--retry must be a count from 0 to 1000, not \(retries)") }
        if let delay {
            guard delay.isFinite, delay >= 0, delay <= TimeLimit.maximumSeconds else {
                throw ValidationError("--retry-delay must be a number of seconds from 0 to \(Int(TimeLimit.maximumSeconds)) (a day), not \(delay)")
            }
        }
        if let maximumTime { try TimeLimit.validate(maximumTime, option: "--retry-max-time") }
        if retries == 0, delay != nil || maximumTime != nil || allErrors || connectionRefused {
            throw ValidationError("--retry-delay, --retry-max-time, --retry-all-errors and --retry-connrefused need --retry N")
        }
    }

    /// The policy, or `nil` without `--retry`. With `--retry-all-errors`, requests of `method`
    /// are repeated whatever it is, and when `failsOnHTTPErrors` (`-f`, `--fail-with-body`) so
    /// are answers of 400 and above.
    func makePolicy(method: String, failsOnHTTPErrors: Bool) -> RetryPolicy? {
        guard retries > 0 else { return nil }
        let fixed = delay.map(TimeLimit.duration)
        var policy = RetryPolicy(
            maximumRetries: retries,
            initialDelay: fixed ?? .seconds(1),
            multiplier: fixed == nil ? 2 : 1,
            maximumDelay: max(fixed ?? .zero, Self.longestWait),
            jitter: 0,
            maximumElapsed: maximumTime.map(TimeLimit.duration)
        )
        if allErrors {
            policy.retryableMethods.insert(HTTPMethod(rawValue: method))
            if failsOnHTTPErrors { policy.retryableStatusCodes.formUnion(400..<600) }
        }
        return policy
    }
}

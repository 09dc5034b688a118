import NIOHTTP1

/// What an HTTP/1.1 server's `Keep-Alive: timeout=N` field says: it closes a connection that
/// stays idle for N seconds (Apache and Node.js send it with every keep-alive response; RFC 2068
/// §19.7.1.1 defines the field, RFC 9112 leaves it a hint).
///
/// A request written as the server closes is lost with its connection, and one that is not
/// idempotent cannot simply go again. So the client stops reusing the connection
/// ``safetyMargin`` before the server's limit, as Node.js's HTTP agent does; a server allowing
/// no more than that margin gets no reuse at all.
struct KeepAliveHint: Equatable, Sendable {
    /// How long before the server's limit the client stops reusing the connection.
    static let safetyMargin: Duration = .seconds(1)

    /// The server's idle limit, in whole seconds.
    let serverTimeoutSeconds: Int

    /// The hint of a response's head: the smallest `timeout` its `Keep-Alive` fields name, or
    /// `nil` when none names one that reads as whole seconds (such a field is passed over, as
    /// a hint must be: the session's own idle limit applies).
    init?(_ headers: HTTPHeaders) {
        var smallest: Int?
        for field in headers["Keep-Alive"] {
            for parameter in field.split(separator: ",") {
                guard let seconds = Self.timeout(in: parameter) else { continue }
                smallest = min(smallest ?? seconds, seconds)
            }
        }
        guard let smallest else { return nil }
        serverTimeoutSeconds = smallest
    }

    /// How long the client may keep the connection idle for reuse: ``safetyMargin`` less than
    /// the server's limit, zero or less meaning not at all.
    var clientIdleLimit: Duration {
        .seconds(serverTimeoutSeconds) - Self.safetyMargin
    }

    /// The seconds of a `timeout=N` parameter (`N` a decimal integer, quoted or not).
    private static func timeout(in parameter: Substring) -> Int? {
        let parts = parameter.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, parts[0].trimmingHTTPWhitespace.equalsIgnoringASCIICase("timeout") else { return nil }
        var value = parts[1].trimmingHTTPWhitespace
        if value.count >= 2, value.first == "\"", value.last == "\"" { value = String(value.dropFirst().dropLast()) }
        // Digits only: no sign, no fraction; a number too long for Int is no hint.
        guard !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(value)
    }
}

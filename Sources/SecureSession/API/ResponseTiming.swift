import TransportSecurity
/// How long the phases of a response took, for the exchange that answered (after redirects,
/// challenges and retries, which ``SecureResponse/duration`` covers as well), as browsers'
/// timing views and curl's `--write-out` show them: whether a pooled connection saved the
/// connect and the handshake, what the TLS handshake and its trust decision cost, how long the
/// server took.
public struct ResponseTiming: Sendable, Hashable, CustomStringConvertible {
    /// Whether the exchange went on a connection of the pool (no connect, no handshake).
    public let reusedConnection: Bool
    /// Waiting for a connection: the pool's per-host limit reached, or another request's
    /// connection to the same server being made.
    public let queueing: Duration
    /// Opening the TCP connection, names resolved (to the proxy when there is one); `nil` on a
    /// reused connection.
    public let connect: Duration?
    /// The TLS handshake with the server, its trust decision and the choice of HTTP version
    /// included (through a proxy, the opening of its tunnel and TLS with an HTTPS proxy too);
    /// `nil` on a reused connection or in cleartext.
    public let tlsHandshake: Duration?
    /// From the connection being ready to the response's head: the request and its body sent,
    /// the server's answer awaited.
    public let waiting: Duration
    /// From the head to the end of the body.
    public let download: Duration

    /// Creates a timing (for tests of code that reads one).
    public init(reusedConnection: Bool, queueing: Duration, connect: Duration?, tlsHandshake: Duration?, waiting: Duration, download: Duration) {
        self.reusedConnection = reusedConnection
        self.queueing = queueing
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.waiting = waiting
        self.download = download
    }
}

extension ResponseTiming {
    /// `new connection: connect 1.2 ms, TLS 8.4 ms; waiting 3.1 ms, download 0.2 ms` (or
    /// `reused connection: …`), with the queueing when there was any.
    public var description: String {
        func text(_ duration: Duration) -> String { String(format: "%.1f ms", duration.inMilliseconds) }
        var opening: [String] = []
        if queueing >= .milliseconds(1) { opening.append("queued \(text(queueing))") }
        if let connect { opening.append("connect \(text(connect))") }
        if let tlsHandshake { opening.append("TLS \(text(tlsHandshake))") }
        let phases = "waiting \(text(waiting)), download \(text(download))"
        let connection = reusedConnection ? "reused connection" : "new connection"
        return opening.isEmpty ? "\(connection): \(phases)" : "\(connection): \(opening.joined(separator: ", ")); \(phases)"
    }
}

/// What opening a connection took: TCP, then TLS (with any proxy tunnel); and the TLS version
/// agreed.
struct ConnectionEstablishment: Sendable, Hashable {
    let connect: Duration
    let tlsHandshake: Duration?
    var tlsVersion: TLSProtocolVersion? = nil
}

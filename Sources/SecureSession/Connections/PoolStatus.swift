/// What a session's connection pool holds for one server at one moment
/// (``SecureSession/poolStatus()``): to see whether requests wait for connections, how many are
/// kept open, and which servers speak HTTP/2.
public struct PoolStatus: Sendable, Hashable, CustomStringConvertible {
    /// The server: `https://host:port` or `http://host:port`.
    public let server: String
    /// HTTP/1.1 connections waiting for a request.
    public var idle: Int
    /// HTTP/1.1 connections carrying a request.
    public var inUse: Int
    /// HTTP/2 connections, each shared by the server's requests.
    public var multiplexed: Int
    /// Connections being made (TCP, a proxy, the TLS handshake and its trust decision).
    public var connecting: Int
    /// Requests waiting for a connection: the per-host limit
    /// (``SecureSessionConfiguration/Connections/maximumPerHost``) is reached.
    public var waitingRequests: Int

    /// Creates a status (for tests of code that reads one).
    public init(server: String, idle: Int = 0, inUse: Int = 0, multiplexed: Int = 0, connecting: Int = 0, waitingRequests: Int = 0) {
        self.server = server
        self.idle = idle
        self.inUse = inUse
        self.multiplexed = multiplexed
        self.connecting = connecting
        self.waitingRequests = waitingRequests
    }

    /// `https://host:443: 2 idle, 1 in use, 0 HTTP/2, 0 connecting, 0 waiting`.
    public var description: String {
        "\(server): \(idle) idle, \(inUse) in use, \(multiplexed) HTTP/2, \(connecting) connecting, \(waitingRequests) waiting"
    }
}

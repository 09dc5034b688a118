extension SecureSessionConfiguration {
    /// How long connecting and whole requests may take.
    public struct Timeouts: Sendable {
        /// How long connecting (TCP and TLS handshake) may take. Zero or less allows no
        /// connection (requests fail with ``SecureSessionError/timeout(_:during:)``); a limit
        /// beyond 292 years is none.
        public var connect: Duration
        /// How long a whole request may take, redirects included, unless the request says
        /// otherwise. Zero or less fails every request with
        /// ``SecureSessionError/timeout(_:during:)`` before anything is sent; a limit beyond 292
        /// years is none.
        public var request: Duration

        /// Creates the time limits: 10 seconds to connect and a minute for a request unless given.
        public init(connect: Duration = .seconds(10), request: Duration = .seconds(60)) {
            self.connect = connect
            self.request = request
        }
    }
}

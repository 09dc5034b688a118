import TransportSecurity

extension SecureSessionConfiguration {
    /// How connections are made and kept.
    public struct Connections: Sendable {
        /// The most connections open at once to one scheme, host, port, identity and policy.
        public var maximumPerHost: Int
        /// How long an idle keep-alive connection (an HTTP/2 connection with no open stream) is
        /// kept for reuse.
        public var idleTimeout: Duration
        /// The HTTP versions offered: HTTP/2 when a TLS server agrees
        /// (``HTTPVersionPolicy/automatic``, the default), or HTTP/1.1 only.
        public var httpVersions: HTTPVersionPolicy
        /// The HTTP proxies requests go through (none by default;
        /// ``HTTPProxySettings/fromEnvironment(_:)`` reads `HTTPS_PROXY` and its kin).
        public var proxies: HTTPProxySettings
        /// Hosts and ports connected to at a given address instead of through DNS (curl's
        /// `--resolve`); names are still sent and verified as the URL gives them.
        public var addressOverrides: [AddressOverride]
        /// Whether large bodies wait for the server's `100 Continue` over HTTP/1.1
        /// (``ExpectContinue``: a Digest challenge or a 413 then costs no upload; a request's own
        /// `Expect: 100-continue` waits too); `nil` (the default): bodies follow their heads at
        /// once, and the connections' pipelines are swift-nio's plain ones.
        public var expectContinue: ExpectContinue?

        /// Creates the connection settings; each unnamed one keeps its default.
        public init(
            maximumPerHost: Int = 6,
            idleTimeout: Duration = .seconds(60),
            httpVersions: HTTPVersionPolicy = .automatic,
            proxies: HTTPProxySettings = .none,
            addressOverrides: [AddressOverride] = [],
            expectContinue: ExpectContinue? = nil
        ) {
            self.maximumPerHost = maximumPerHost
            self.idleTimeout = idleTimeout
            self.httpVersions = httpVersions
            self.proxies = proxies
            self.addressOverrides = addressOverrides
            self.expectContinue = expectContinue
        }
    }
}

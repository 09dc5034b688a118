extension SecureSessionConfiguration {
    /// What happens to responses.
    public struct Responses: Sendable {
        /// The most redirects followed for one request.
        public var maximumRedirects: Int
        /// The largest response body held in memory, in bytes, unless the request says
        /// otherwise: a longer body ends the request with
        /// ``SecureSessionError/responseTooLarge(limit:)`` (and its connection) as soon as it
        /// passes the limit, or at once when its `Content-Length` says so. 64 MiB by default.
        /// Bodies that ``SecureSession/download(_:to:continuingPartialFile:progress:)`` streams to
        /// a file are not held in memory and not bounded by it.
        public var maximumBodySize: Int
        /// Which responses are successes, unless the request says otherwise.
        public var validation: ResponseValidation
        /// Whether compressed responses are asked for and decoded (`.disabled` by default: a
        /// body arrives as the server sent it).
        public var decompression: ResponseDecompression
        /// The hosts whose responses are accepted only with an HTTP message signature (RFC 9421)
        /// that verifies, covering their body (``ResponseSignatureRequirement``); `nil` (the
        /// default): responses are not looked at for signatures.
        public var signatures: ResponseSignatureRequirement?
        /// Where responses are kept to answer later `GET` requests (RFC 9111's private cache,
        /// with each request's ``SecureRequest/cachePolicy``): fresh ones without the network,
        /// stale ones after a `304`. Kept per URL, client identity, trust evaluator, proxy and
        /// credentials, so that no response crosses from one to another. `nil` (the default):
        /// nothing is kept, as a server-side client that calls the same API again usually wants
        /// its answer anew.
        public var cache: ResponseCache?

        /// Creates the response settings; each unnamed one keeps its default.
        public init(
            maximumRedirects: Int = 10,
            maximumBodySize: Int = 64 << 20,
            validation: ResponseValidation = .successfulStatus,
            decompression: ResponseDecompression = .disabled,
            signatures: ResponseSignatureRequirement? = nil,
            cache: ResponseCache? = nil
        ) {
            self.maximumRedirects = maximumRedirects
            self.maximumBodySize = maximumBodySize
            self.validation = validation
            self.decompression = decompression
            self.signatures = signatures
            self.cache = cache
        }
    }
}

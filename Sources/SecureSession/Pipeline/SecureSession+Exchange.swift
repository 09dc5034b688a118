import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Reachability
import TransportSecurity
import TransportSecurityNIO

extension SecureSession {
    /// What one request gave: the response's head and trailer fields, the trust decision and
    /// TLS version of the connection that answered, a challenge's body held back, how long each
    /// phase took, and whether the session's cache answered.
    struct Exchange {
        let head: HTTPResponseHead
        let trailers: HTTPHeaders?
        let trustDecision: TrustDecision?
        let tlsVersion: TLSProtocolVersion?
        let heldBody: Data
        let timing: ResponseTiming
        var source: ResponseSource = .network
        /// The `304` that confirmed a kept response (``ResponseSource/revalidated``).
        var confirmingHead: HTTPResponseHead?

        /// The fields the server sent in this exchange: the response's own from the network, the
        /// `304`'s for a kept response it confirmed; `nil` when the cache answered alone. Only
        /// these set cookies and HSTS: a kept response's own `Set-Cookie`, written back, would
        /// bring back cookies deleted since (a logout, `removeAll()`).
        var fieldsFromServer: HTTPHeaders? {
            source == .network ? head.headers : confirmingHead?.headers
        }
    }

    /// One request on one pooled connection. A server may close an idle keep-alive connection
    /// just as it is reused: a replayable request (an idempotent method, or an idempotency key:
    /// ``SecureRequest/isReplayable``) that fails on a reused connection before any of its
    /// response arrived is sent once more, on a new connection. A request an HTTP/2
    /// server did not process (``RequestNotProcessed``) is sent again whatever its method, on a
    /// new connection, up to three times in all; a try turned away by a server that ended its
    /// connection gracefully after serving others does not count (it rotates connections, as nginx
    /// does after `keepalive_requests`; the request's deadline still bounds the whole). A request
    /// an HTTP/2 server answers with `HTTP_1_1_REQUIRED` (``HTTP1Required``) is sent again, once,
    /// whatever its method, on a connection offering HTTP/1.1 only, and the server's later
    /// requests go over HTTP/1.1 from the start. A request during which the server asked for a
    /// client certificate by renegotiating, which a challenge handler cannot answer then
    /// (``CertificateRequestedByRenegotiation``), is sent again, once and whatever its method, on
    /// a connection presenting the handler's answer. `tee`, when given, is given a copy of the
    /// body of each attempt's response, whatever is done with it (for the cache).
    /// `connectionKey`: the request's (``connectionKey(for:)``), when already made.
    /// With a ``SecureSessionConfiguration/Features/circuitBreaker``, the exchange goes only if the
    /// server's circuit lets it, and its outcome is counted (``throughCircuit(of:in:deadline:_:)``);
    /// then, with a ``SecureSessionConfiguration/Features/rateLimiter``, it waits for its turn
    /// (``inTurn(of:under:deadline:_:)``).
    func exchange(
        _ request: SecureRequest,
        connectionKey givenKey: ConnectionKey? = nil,
        sink: @escaping ResponseBodySink,
        closer: ConnectionCloser,
        deadline: Deadline,
        tee: CacheBodyTee? = nil
    ) async throws -> Exchange {
        if let malformation = request.malformation() { throw SecureSessionError.invalidRequest(malformation) }
        let key = try givenKey ?? connectionKey(for: request)
        let limiter = configuration.features.rateLimiter.flatMap { $0.applies(to: key.host) ? $0 : nil }
        guard limiter != nil || configuration.features.circuitBreaker != nil else {
            // Neither: straight to the connections, with no closure made for the common case.
            return try await exchangeOnConnections(request, connectionKey: key, sink: sink, closer: closer, deadline: deadline, tee: tee)
        }
        let onConnections: () async throws -> Exchange = {
            try await self.exchangeOnConnections(request, connectionKey: key, sink: sink, closer: closer, deadline: deadline, tee: tee)
        }
        var exchangeInTurn = onConnections
        if let limiter {
            exchangeInTurn = { try await self.inTurn(of: key, under: limiter, deadline: deadline, onConnections) }
        }
        guard let breaker = configuration.features.circuitBreaker else { return try await exchangeInTurn() }
        return try await throughCircuit(of: key, in: breaker, deadline: deadline, exchangeInTurn)
    }

    /// Throws what ends a request that could be sent again: the session shut down, the task
    /// cancelled, or the request's deadline over (it closed the stream or connection, however the
    /// failure looked).
    func checkMayTryAgain(_ deadline: Deadline) throws {
        if pool.hasShutDown { throw SecureSessionError.sessionShutDown }
        if Task.isCancelled { throw SecureSessionError.cancelled }
        if let ending = deadline.ending { throw ending }
    }
}

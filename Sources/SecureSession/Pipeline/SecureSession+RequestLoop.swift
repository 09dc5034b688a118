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
    // The request loop: one request to its answer, through challenges and redirects.

    /// One attempt of a request; when the connection cannot be made and the request waits for
    /// connectivity, waits for the host to become reachable and tries once more. A connection
    /// that could not be made is thrown as ``ConnectionNotEstablished``, for the retry loop to
    /// know that nothing was sent.
    func performWaitingForConnectivity(_ request: SecureRequest, sink: @escaping ResponseBodySink) async throws -> SecureResponse {
        do {
            return try await performOnce(request, sink: sink)
        } catch let failure as ConnectionNotEstablished {
            guard let patience = request.waitsForConnectivity else { throw failure }
            let target = try reachabilityTarget(for: request.url)
            guard (try? ReachabilityMonitor.currentStatus(of: target))?.isReachable != true else { throw failure }
            configuration.logger(for: request).debug("waiting for connectivity", metadata: ["host": "\(target)", "for": "\(patience)"])
            let monitor = ReachabilityMonitor(target: target)
            do {
                try monitor.startMonitoring()
            } catch {
                throw failure
            }
            defer { monitor.stopMonitoring() }
            guard let status = await monitor.waitUntilReachable(timeout: patience) else { throw failure }
            configuration.logger(for: request).debug("reachable again, retrying", metadata: ["host": "\(target)", "via": "\(status)"])
            return try await performOnce(request, sink: sink)
        }
    }

    private func performOnce(_ request: SecureRequest, sink: @escaping ResponseBodySink) async throws -> SecureResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let limit = request.timeout ?? configuration.timeouts.request
        // A limit that has passed before the request starts ends it before anything is sent (a
        // pooled connection could otherwise answer before the deadline sweep comes round).
        guard limit > .zero else { throw SecureSessionError.timeout(limit) }
        let closer = ConnectionCloser()
        return try await withDeadline(limit, onTimeout: closer.closeAll) { deadline in
            // Redirects are upgraded as they are made (`redirected`); challenges keep the URL.
            var current = request
            current.url = self.upgradedByHSTS(request.url)
            var redirects: [URL] = []
            var authentication = HTTPAuthentication(configuration: self.configuration)
            while true {
                current.arrivalCheck?.willSend(current)
                let exchanged = try await self.exchangeThroughCache(
                    self.askingForSignature(self.withCookies(current)), sink: sink, closer: closer, deadline: deadline
                )
                let (head, heldBody) = (exchanged.head, exchanged.heldBody)
                self.configuration.logger(for: current).debug("response", metadata: [
                    "request": "\(current.method.rawValue) \(current.url.redacted)", "status": "\(head.status.code) \(head.status.reasonPhrase)",
                    "timing": "\(exchanged.timing)",
                ])
                // What a kept response said was noted when it came from the server: only what the
                // server sends now counts (a 304's own fields, not the kept ones it confirms).
                if let fresh = exchanged.fieldsFromServer {
                    current.whenAnswerVerified(self.noting(fresh, from: current.url, over: exchanged.trustDecision))
                }
                if head.isChallenge {
                    // A challenge is answered (credentials sent) only when it verifies.
                    try current.arrivalCheck?.verifyHead(head)
                    // A handler may take its time: the deadline bounds it.
                    let key = try self.connectionKey(for: current)
                    deadline.enter(.awaitingChallengeHandler(key))
                    let (authorized, answered) = try await deadline.bound { [authentication, current] in
                        var answering = authentication
                        let authorized = try await answering.answer(head, to: current, key: key)
                        return (authorized, answering)
                    }
                    authentication = answered
                    if let authorized {
                        current.arrivalCheck?.actedOnVerifiedHead()
                        current = authorized
                        continue
                    }
                    // Nobody answered: the 401 and its body reach the caller.
                    if !heldBody.isEmpty { try await sink(head, ByteBuffer(bytes: heldBody)) }
                }
                if current.followsRedirects, head.isRedirect, let location = try Self.location(of: head) {
                    guard redirects.count < self.configuration.responses.maximumRedirects else {
                        throw SecureSessionError.tooManyRedirects(self.configuration.responses.maximumRedirects)
                    }
                    // A redirect is followed only when it verifies.
                    try current.arrivalCheck?.verifyHead(head)
                    current.arrivalCheck?.actedOnVerifiedHead()
                    current = try self.redirected(current, status: Int(head.status.code), location: location)
                    redirects.append(current.url)
                    self.configuration.logger(for: current).debug("redirect", metadata: ["to": "\(current.url.redacted)"])
                    continue
                }
                return SecureResponse(
                    statusCode: Int(head.status.code),
                    reasonPhrase: head.status.reasonPhrase,
                    httpVersion: ResponseHead.text(of: head.version),
                    headers: head.headers.map { ($0.name, $0.value) },
                    body: Data(),
                    url: current.url,
                    trustDecision: exchanged.trustDecision,
                    tlsVersion: exchanged.tlsVersion,
                    redirects: redirects,
                    duration: clock.now - started,
                    timing: exchanged.timing,
                    trailers: exchanged.trailers.map { $0.map { ($0.name, $0.value) } } ?? [],
                    source: exchanged.source,
                    sentRequest: current
                )
            }
        }
    }

    /// What the session notes of the fields a server sent from `url` over a connection `trust`
    /// decided: its cookies, and its HSTS over a clean TLS connection.
    private func noting(_ fields: HTTPHeaders, from url: URL, over trust: TrustDecision?) -> @Sendable () -> Void {
        let (jar, hsts, secureContext) = (configuration.features.cookieJar, configuration.features.hsts, isSecureContext(url))
        let noteHSTS = Self.isCleanTLS(trust)
        return {
            jar?.store(setCookieFields: fields["Set-Cookie"], from: url, secureContext: secureContext)
            if let hsts, noteHSTS, let host = url.host { hsts.note(fields: fields["Strict-Transport-Security"], from: host) }
        }
    }

    /// `request` with the cookies the jar has for its URL, added to a `Cookie` field of the
    /// request's own (one field, as RFC 6265 §5.4 asks).
    func withCookies(_ request: SecureRequest) -> SecureRequest {
        guard let field = configuration.features.cookieJar?.cookieField(for: request.url, secureContext: isSecureContext(request.url)) else { return request }
        var sent = request
        if let index = sent.headers.firstIndex(where: { $0.name.equalsIgnoringASCIICase("Cookie") }) {
            sent.headers[index].value += "; " + field
        } else {
            sent.headers.append((name: "Cookie", value: field))
        }
        return sent
    }

    /// Whether a request to `url` is a secure context for `Secure` cookies: https, or http to a
    /// loopback host (`localhost`, `127.0.0.0/8`, `::1`) over a connection that really goes to
    /// the loopback interface, neither through a proxy nor to another address an
    /// ``AddressOverride`` names (whose traffic leaves the machine in cleartext).
    func isSecureContext(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        if scheme == "https" || scheme == "wss" { return true }
        guard let host = url.host.map(ServerHost.init), host.isLoopback else { return false }
        let port = url.port ?? 80
        let address = configuration.connections.addressOverrides.address(host: host.name, port: port) ?? host.name
        guard ServerHost(address).isLoopback else { return false }
        return configuration.connections.proxies.proxy(isSecure: false, host: host.name, address: address) == nil
    }
}


/// A connection that could not be made: nothing of the request was sent, so it may be retried.
/// Never leaves the session; callers see ``error``.
struct ConnectionNotEstablished: Error {
    let error: SecureSessionError
}

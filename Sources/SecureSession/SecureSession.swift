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

/// An async HTTP session whose every TLS connection is judged by a TransportSecurity policy:
/// the `AFHTTPSessionManager` of this library.
///
/// ```swift
/// let pins = try CertificateLoader.certificates(atPath: "pins/issuing-ca.pem")
/// let session = SecureSession(configuration: .init(
///     trustEvaluator: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)
/// ))
/// let user: User = try await session.get(URL(string: "https://api.example.com/me")!).decode(User.self)
/// await session.shutdown()
/// ```
///
/// HTTP/2 when a TLS server agrees through ALPN (one connection shared by concurrent requests),
/// else HTTP/1.1 with keep-alive connections; connections pooled per scheme, host, port, client
/// identity and policy; redirects followed (bounded, the trust decided again for every new host, https → http
/// refused); timeouts; cancellation through task cancellation; downloads streamed to a file.
public final class SecureSession: Sendable {
    /// The configuration.
    public let configuration: SecureSessionConfiguration
    private let group: any EventLoopGroup
    private let pool: ConnectionPool
    let tlsContexts: TLSContextCache
    private let sessionHandler: HandlerIdentity?
    private let reporter: PinFailureReporter?
    let instrumentation: SessionInstrumentation
    /// The servers that asked for HTTP/1.1 over HTTP/2 (``HTTP1Required``): their connections
    /// offer `http/1.1` alone through ALPN.
    private let http1OnlyServers = BoundedMemory<HostAndPort, Void>()
    /// How long servers that do not say so keep idle HTTP/1.1 connections, as seen here.
    private let idleLimits = ObservedIdleLimits()
    /// The answers challenge handlers gave to servers that asked for a client certificate by
    /// renegotiating (``CertificateRequestedByRenegotiation``): presented by the connections of
    /// the same key without asking.
    private let renegotiationAnswers = RenegotiationAnswers()

    /// What the session's connections are made with.
    var connectorEnvironment: Connector.Environment {
        Connector.Environment(
            configuration: configuration,
            group: group,
            reporter: reporter,
            instrumentation: instrumentation,
            renegotiationAnswers: renegotiationAnswers,
            idleLimits: idleLimits
        )
    }

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: Trust, identity, timeouts, validation.
    ///   - eventLoopGroup: Where connections run; the shared singleton by default.
    public init(
        configuration: SecureSessionConfiguration = SecureSessionConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.sessionHandler = configuration.challengeHandler.map(HandlerIdentity.init)
        let reportsPinFailures = configuration.transportRules?.pinSets.contains { !$0.reportURLs.isEmpty } ?? false
        self.reporter = configuration.pinFailureReporter ?? (reportsPinFailures ? PinFailureReporter(logger: configuration.logger) : nil)
        self.group = eventLoopGroup
        self.instrumentation = SessionInstrumentation(metrics: configuration.metricsFactory)
        self.pool = ConnectionPool(
            maximumPerKey: configuration.maximumConnectionsPerHost,
            idleTimeout: configuration.idleConnectionTimeout,
            multiplexes: configuration.httpVersions == .automatic
        )
        // One TLS context per kind of transport rule (one in all without rules).
        self.tlsContexts = TLSContextCache(httpVersions: configuration.httpVersions, versions: TLSVersionBounds(configuration))
    }

    /// Sends `request` and returns the whole response, validated.
    public func send(_ request: SecureRequest) async throws -> SecureResponse {
        try await instrumentation.request(request) { try await sendMeasured(request) }
    }

    private func sendMeasured(_ request: SecureRequest) async throws -> SecureResponse {
        let body = BodyCollector(limit: memoryLimit(of: request))
        let check = configuration.responseSignatures.map(ArrivingResponseCheck.init)
        var request = request
        request.arrivalCheck = check
        // Only a retry needs the held body taken back.
        let startOver: (@Sendable () -> Bool)? = interceptor(for: request) != nil ? { @Sendable () -> Bool in
            body.reset()
            check?.startOver()
            return true
        } : nil
        var response = try await perform(request, startingOver: startOver) { head, buffer in
            check?.absorb(buffer, of: head)
            try body.append(buffer, of: head)
        }
        response = response.with(body: body.data)
        // The whole answer, before any of it is the caller's and before its status is judged.
        try check?.finish(response)
        if let violation = (request.validation ?? configuration.validation).violation(in: response) { throw violation }
        return response
    }

    /// Sends `request` and writes the body to `path` as it arrives, never holding it in memory.
    /// The response's ``SecureResponse/body`` is empty. The file is put in place (replacing an
    /// existing file atomically) only after the status is validated; on failure the destination
    /// stays as it was and no partial file is left behind. A directory is never replaced.
    ///
    /// With a retrying interceptor, an attempt after a body that broke off asks only for what
    /// is missing (`Range`, on condition of the body's strong `ETag` or `Last-Modified` through
    /// `If-Range`) and appends it, instead of starting over; without a validator, or when the
    /// session decompresses bodies, it starts over.
    ///
    /// With `continuingPartialFile` (curl's `-C -`), a regular file already at `path` is taken
    /// for the start of the body: only the bytes after it are asked for (with the request's own
    /// `If-Range`, when it has one, as the condition) and appended to it in place. A `200`
    /// instead (the server ignores ranges, or the `If-Range` did not hold) replaces the file
    /// with the whole body; a `416` saying the body is as long as the file leaves it as it is,
    /// and the response (status 416) is returned without being validated. A download that
    /// fails then leaves what arrived of the body in place, for the next call to continue. It
    /// needs ``SecureSessionConfiguration/decompression`` disabled and a request without a
    /// `Range` of its own (else ``SecureSessionError/invalidRequest(_:)``). A `206` that does not
    /// start where the file ends fails the download (``SecureSessionError/invalidResponse(_:)``).
    ///
    /// `progress`, when given, is told after every part written how many bytes the file holds
    /// and how long the whole body is when the server said (AFNetworking's download progress);
    /// it runs on the task receiving the body, so it must be quick.
    public func download(
        _ request: SecureRequest,
        to path: String,
        continuingPartialFile: Bool = false,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> SecureResponse {
        try await instrumentation.request(request) {
            try await downloadMeasured(request, to: path, continuingPartialFile: continuingPartialFile, progress: progress)
        }
    }

    private func downloadMeasured(
        _ request: SecureRequest,
        to path: String,
        continuingPartialFile: Bool,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> SecureResponse {
        var request = request
        let check = configuration.responseSignatures.map(ArrivingResponseCheck.init)
        request.arrivalCheck = check
        if let requirement = configuration.responseSignatures, continuingPartialFile, requirement.applies(to: request.url) {
            throw SecureSessionError.invalidRequest(
                "the responses of \(request.url.host(percentEncoded: false) ?? "the host") must carry a verified signature (responseSignatures), and the bytes of a partial file came with no answer to verify: download the whole body"
            )
        }
        if continuingPartialFile {
            guard configuration.decompression == .disabled else {
                throw SecureSessionError.invalidRequest("a partial file cannot be continued when the session decompresses bodies: ranges count the compressed bytes")
            }
            guard request.header("Range") == nil else {
                throw SecureSessionError.invalidRequest("a partial file cannot be continued by a request with a Range of its own")
            }
        }
        let file = try DownloadFile(destination: path, appending: continuingPartialFile)
        if check != nil, file.isDevice {
            throw SecureSessionError.invalidRequest("a download to a device or pipe is written as it arrives, before its signature could be verified (responseSignatures): download to a file")
        }
        // Under a signature requirement, a body is never spliced from two answers: each is
        // verified whole.
        let resumption = DownloadResumption(
            file: file,
            request: request,
            continuing: continuingPartialFile,
            decompression: configuration.decompression,
            resumes: check == nil,
            logger: configuration.logger
        )
        do {
            // A file can take back a failed attempt's body (or keep it to continue); a pipe or
            // device cannot. Only a retry needs it.
            let startOver: (@Sendable () -> Bool)? = interceptor(for: request) != nil ? { @Sendable () -> Bool in
                check?.startOver()
                return file.canStartOver
            } : nil
            let response = try await perform(request, preparing: resumption.prepare, startingOver: startOver) { head, buffer in
                check?.absorb(buffer, of: head)
                let made = try resumption.write(buffer, of: head)
                progress?(made)
            }
            try resumption.settle(response)
            // Before the file is put in place, and before its status is judged.
            try check?.finish(response)
            if !resumption.fileWasComplete, let violation = (request.validation ?? configuration.validation).violation(in: response) {
                throw violation
            }
            try file.commit()
            return response
        } catch {
            file.discard(keepingPartial: continuingPartialFile && resumption.fileHoldsBodyStart)
            throw error
        }
    }

    /// Sends `request` and hands its body to `consume` part by part as it arrives, never holding
    /// it whole (a long download processed on the fly, a stream of JSON lines or server-sent
    /// events). The next part is read only after `consume` returns, so a slow consumer holds the
    /// server back (TCP, or HTTP/2 flow control). The status and content type are validated from
    /// the response head before the first part is handed over: an unacceptable response never
    /// reaches `consume`, and its body (bounded as in memory) comes with the error. An error
    /// thrown by `consume` ends the request, closing its connection, and is rethrown. The
    /// response's ``SecureResponse/body`` is empty.
    public func stream(_ request: SecureRequest, into consume: @escaping @Sendable (Data) async throws -> Void) async throws -> SecureResponse {
        try await stream(request, head: { _ in }, into: consume)
    }

    /// ``stream(_:into:)``, with the response's head handed to `head` first: before the first
    /// part of the body, or once the response is over when it has none (a printer of status line
    /// and headers, then the body as it arrives: `tsec get -i`). Only an acceptable response
    /// reaches `head`; an error it throws ends the request and is rethrown.
    public func stream(
        _ request: SecureRequest,
        head onHead: @escaping @Sendable (ResponseHead) async throws -> Void,
        into consume: @escaping @Sendable (Data) async throws -> Void
    ) async throws -> SecureResponse {
        try await instrumentation.request(request) { try await streamMeasured(request, head: onHead, into: consume) }
    }

    private func streamMeasured(
        _ request: SecureRequest,
        head onHead: @escaping @Sendable (ResponseHead) async throws -> Void,
        into consume: @escaping @Sendable (Data) async throws -> Void
    ) async throws -> SecureResponse {
        let validation = request.validation ?? configuration.validation
        let refused = BodyCollector(limit: memoryLimit(of: request))
        let verdict = NIOLockedValueBox<Bool?>(nil)
        let headHandedOver = LockedFlag()
        let check = configuration.responseSignatures.map(ArrivingResponseCheck.init)
        var request = request
        request.arrivalCheck = check
        let response: SecureResponse
        do {
            response = try await perform(request) { head, buffer in
                // The signature before any of the answer is used; the body as it passes.
                try check?.verifyHead(head)
                check?.absorb(buffer, of: head)
                try await Self.deliver(head, buffer, validation: validation, verdict: verdict, refused: refused) { part in
                    if !headHandedOver.isSet {
                        headHandedOver.set()
                        try await onHead(ResponseHead(head))
                    }
                    try await consume(part)
                }
            }
        } catch let failure as ConsumerError {
            throw failure.error
        }
        try check?.finish(response)
        if let violation = validation.violation(in: response.with(body: refused.data)) { throw violation }
        if !headHandedOver.isSet { try await onHead(ResponseHead(response)) }
        return response
    }

    /// One part of a streamed body: to the consumer when the response's head is acceptable (the
    /// verdict is reached once), else kept for the error.
    private static func deliver(
        _ head: HTTPResponseHead,
        _ buffer: ByteBuffer,
        validation: ResponseValidation,
        verdict: NIOLockedValueBox<Bool?>,
        refused: BodyCollector,
        to consume: @Sendable (Data) async throws -> Void
    ) async throws {
        let accepted = verdict.withLockedValue { verdict in
            let decided = verdict ?? (validation.violation(
                statusCode: Int(head.status.code),
                mediaType: SecureResponse.mediaType(ofContentType: head.headers.first(name: "Content-Type")),
                body: Data()
            ) == nil)
            verdict = decided
            return decided
        }
        guard accepted else { return try refused.append(buffer, of: head) }
        do {
            try await consume(Data(buffer.readableBytesView))
        } catch {
            throw ConsumerError(error: error)
        }
    }

    /// Whether the host of `url` is reachable now, and through which interface: the route the
    /// kernel would take to it (or to the address an ``AddressOverride`` gives), read once. Ask it
    /// after a ``SecureSessionError/connectionFailed(_:)`` to tell "no network" from "the server
    /// refused". ``ReachabilityStatus/unknown`` when the routing table cannot be read.
    public func reachability(of url: URL) -> ReachabilityStatus {
        guard let target = try? reachabilityTarget(for: url) else { return .unknown }
        return (try? ReachabilityMonitor.currentStatus(of: target)) ?? .unknown
    }

    /// `url`'s host; an ``SecureSessionError/invalidURL(_:)`` when it has none or when no host
    /// name can be what `URL` decoded: `%00` would have the resolver look up the name before it
    /// while the rules, cookies and trust judged the whole.
    private static func host(of url: URL) throws -> (text: String, parsed: ServerHost) {
        guard let host = url.host, !host.isEmpty else { throw SecureSessionError.invalidURL("\(url.redacted) has no host") }
        let parsed = ServerHost(host)
        if let problem = parsed.nameProblem { throw SecureSessionError.invalidURL("\(url.redacted): its host \(problem)") }
        return (host, parsed)
    }

    /// The host (or overridden address) a request to `url` connects to.
    private func reachabilityTarget(for url: URL) throws -> ReachabilityTarget {
        let host = try Self.host(of: url).text
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return .host(configuration.addressOverrides.address(host: host, port: port) ?? host)
    }

    /// What the connection pool holds now, per server: idle and busy HTTP/1.1 connections, HTTP/2
    /// connections, connections being made, requests waiting for one.
    public func poolStatus() -> [PoolStatus] {
        pool.status()
    }

    /// How many connection keys the pool keeps anything about (for tests of its memory).
    var rememberedPoolKeyCount: Int { pool.rememberedKeyCount }

    /// Closes every connection, idle or in use: requests in flight, those waiting for a
    /// connection and later ones fail with ``SecureSessionError/sessionShutDown``.
    public func shutdown() async {
        pool.shutdown()
    }

    // MARK: - The request loop

    /// The interceptor of `request`: its own, else the session's; `nil` when it is sent once.
    func interceptor(for request: SecureRequest) -> (any RequestInterceptor)? {
        request.interceptor ?? configuration.interceptor
    }

    /// The most of a response to `request` that may be held in memory.
    private func memoryLimit(of request: SecureRequest) -> Int {
        request.maximumResponseBodySize ?? configuration.maximumResponseBodySize
    }

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
            configuration.logger.info("waiting for connectivity", metadata: ["host": "\(target)", "for": "\(patience)"])
            let monitor = ReachabilityMonitor(target: target)
            do {
                try monitor.startMonitoring()
            } catch {
                throw failure
            }
            defer { monitor.stopMonitoring() }
            guard let status = await monitor.waitUntilReachable(timeout: patience) else { throw failure }
            configuration.logger.info("reachable again, retrying", metadata: ["host": "\(target)", "via": "\(status)"])
            return try await performOnce(request, sink: sink)
        }
    }

    private func performOnce(_ request: SecureRequest, sink: @escaping ResponseBodySink) async throws -> SecureResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let limit = request.timeout ?? configuration.requestTimeout
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
                self.configuration.logger.debug("response", metadata: [
                    "request": "\(current.method.rawValue) \(current.url.redacted)", "status": "\(head.status.code) \(head.status.reasonPhrase)",
                    "timing": "\(exchanged.timing)",
                ])
                // What a kept response said was noted when it came from the server: only what the
                // server sends now counts (a 304's own fields, not the kept ones it confirms).
                if let fresh = exchanged.fieldsFromServer {
                    current.whenAnswerVerified(self.noting(fresh, from: current.url, over: exchanged.trustDecision))
                }
                if Self.isChallenge(head) {
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
                if current.followsRedirects, Self.isRedirect(head), let location = try Self.location(of: head) {
                    guard redirects.count < self.configuration.maximumRedirects else {
                        throw SecureSessionError.tooManyRedirects(self.configuration.maximumRedirects)
                    }
                    // A redirect is followed only when it verifies.
                    try current.arrivalCheck?.verifyHead(head)
                    current.arrivalCheck?.actedOnVerifiedHead()
                    current = try self.redirected(current, status: Int(head.status.code), location: location)
                    redirects.append(current.url)
                    self.configuration.logger.debug("redirect", metadata: ["to": "\(current.url.redacted)"])
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
        let (jar, hsts, secureContext) = (configuration.cookieJar, configuration.hsts, isSecureContext(url))
        let noteHSTS = Self.isCleanTLS(trust)
        return {
            jar?.store(setCookieFields: fields["Set-Cookie"], from: url, secureContext: secureContext)
            if let hsts, noteHSTS, let host = url.host { hsts.note(fields: fields["Strict-Transport-Security"], from: host) }
        }
    }

    /// `request` with the cookies the jar has for its URL, added to a `Cookie` field of the
    /// request's own (one field, as RFC 6265 §5.4 asks).
    func withCookies(_ request: SecureRequest) -> SecureRequest {
        guard let field = configuration.cookieJar?.cookieField(for: request.url, secureContext: isSecureContext(request.url)) else { return request }
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
        let address = configuration.addressOverrides.address(host: host.name, port: port) ?? host.name
        guard ServerHost(address).isLoopback else { return false }
        return configuration.proxies.proxy(isSecure: false, host: host.name, address: address) == nil
    }

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
    /// With a ``SecureSessionConfiguration/circuitBreaker``, the exchange goes only if the
    /// server's circuit lets it, and its outcome is counted (``throughCircuit(of:in:deadline:_:)``);
    /// then, with a ``SecureSessionConfiguration/rateLimiter``, it waits for its turn
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
        let limiter = configuration.rateLimiter.flatMap { $0.applies(to: key.host) ? $0 : nil }
        guard limiter != nil || configuration.circuitBreaker != nil else {
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
        guard let breaker = configuration.circuitBreaker else { return try await exchangeInTurn() }
        return try await throughCircuit(of: key, in: breaker, deadline: deadline, exchangeInTurn)
    }

    /// ``exchange(_:connectionKey:sink:closer:deadline:tee:)`` on the pool's connections.
    private func exchangeOnConnections(
        _ request: SecureRequest,
        connectionKey: ConnectionKey,
        sink: @escaping ResponseBodySink,
        closer: ConnectionCloser,
        deadline: Deadline,
        tee: CacheBodyTee?
    ) async throws -> Exchange {
        // What HTTP_1_1_REQUIRED changes for the next try.
        var keyOfTry = connectionKey
        var tlsContextOfTry = try tlsContexts.context(for: keyOfTry.rule, identity: keyOfTry.identity, isHTTP1Only: keyOfTry.isHTTP1Only)
        let configuration = configuration
        let environment = connectorEnvironment
        let proxyTLSContext = keyOfTry.proxy?.kind == .https ? try tlsContexts.proxyContext() : nil
        // Measured once, before any connection is made: an upload file that cannot be sent is
        // refused first; a retry sends the same body again (a file from its start).
        let body = try RequestBodySource.of(request)
        var attempt = 0
        // Tries turned away by a server that served others on their connection, or that asked
        // for HTTP/1.1: not counted.
        var uncountedTries = 0
        // Whether the request went again to present a handler's answer to a renegotiation.
        var answeredRenegotiation = false
        // Until a server refuses the expectation (417): then without it.
        var mayWaitToContinue = true
        let clock = ContinuousClock()
        while true {
            attempt += 1
            tee?.reset()
            let key = keyOfTry
            let tlsContext = tlsContextOfTry
            let leasing = clock.now
            let (connection, reused): (any PooledConnection, Bool)
            deadline.enter(.waitingForConnection(key))
            do {
                (connection, reused) = try await pool.lease(key, deadline: deadline) {
                    try await Connector.connect(key: key, tlsContext: tlsContext, proxyTLSContext: proxyTLSContext, deadline: deadline, in: environment)
                }
            } catch SecureSessionError.connectionFailed(let detail) {
                // Nothing of this request was sent: it may be tried again once the host is reachable.
                throw ConnectionNotEstablished(error: .connectionFailed(detail))
            }
            let leased = clock.now
            deadline.enter(.awaitingResponse(key))
            // When the response's first part came (`nil`: nothing of it yet).
            let firstPart = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
            let held = BodyCollector(limit: memoryLimit(of: request))
            do {
                let followsRedirects = request.followsRedirects
                let sentHead = requestHead(request, key: key, body: body)
                if let observe = configuration.requestHeadObserver {
                    let isHTTP2 = connection is HTTP2Connection
                    let written = isHTTP2 ? sentHead : ExpectContinue.head(
                        sentHead, body: body, mayWaitToContinue: mayWaitToContinue, expectContinue: configuration.expectContinue
                    )
                    observe(SentRequestHead(written, url: request.url, isHTTP2: isHTTP2))
                }
                let response = try await connection.execute(
                    head: sentHead,
                    replayable: request.isReplayable,
                    body: body,
                    mayWaitToContinue: mayWaitToContinue,
                    closer: closer
                ) { head, buffer in
                    firstPart.withLockedValue { if $0 == nil { $0 = clock.now } }
                    deadline.received(buffer.readableBytes, from: key)
                    tee?.append(buffer)
                    // The body of a redirect that will be followed is not the caller's; a
                    // challenge's body is held until it is known whether the request is resent.
                    if followsRedirects, Self.isRedirect(head) { return }
                    if Self.isChallenge(head) { return try held.append(buffer, of: head) }
                    try await sink(head, buffer)
                }
                pool.release(connection, reusable: response.reusable && !key.isSingleUse)
                let ended = clock.now
                let head = firstPart.withLockedValue { $0 } ?? ended
                let opening = reused ? nil : connection.establishment
                let timing = ResponseTiming(
                    reusedConnection: reused,
                    queueing: max(.zero, leased - leasing - (opening.map { $0.connect + ($0.tlsHandshake ?? .zero) } ?? .zero)),
                    connect: opening?.connect,
                    tlsHandshake: opening?.tlsHandshake,
                    waiting: head - leased,
                    download: ended - head
                )
                return Exchange(
                    head: response.head, trailers: response.trailers, trustDecision: connection.trustDecision,
                    tlsVersion: connection.establishment.tlsVersion, heldBody: held.data, timing: timing
                )
            } catch is ExpectationRefused where mayWaitToContinue {
                pool.release(connection, reusable: false)
                mayWaitToContinue = false
                configuration.logger.debug("expectation refused (417), sending again without it", metadata: ["url": "\(request.url.redacted)"])
            } catch let notProcessed as RequestNotProcessed {
                pool.release(connection, reusable: false)
                try checkMayTryAgain(deadline)
                if notProcessed.afterOthersWereServed { uncountedTries += 1 }
                guard attempt - uncountedTries < 3, firstPart.withLockedValue({ $0 }) == nil else {
                    throw SecureSessionError.connectionFailed(notProcessed.description)
                }
                configuration.logger.debug("not processed by the server, sending again on a new connection", metadata: [
                    "url": "\(request.url.redacted)", "reason": "\(notProcessed)",
                ])
            } catch let required as HTTP1Required {
                // The stream was reset; the connection serves the server's other requests.
                pool.release(connection, reusable: true)
                try checkMayTryAgain(deadline)
                guard !key.isHTTP1Only, firstPart.withLockedValue({ $0 }) == nil else {
                    throw SecureSessionError.connectionFailed(required.description)
                }
                http1OnlyServers.remember((), for: key.server)
                keyOfTry = key.offeringHTTP1Only()
                tlsContextOfTry = try tlsContexts.context(for: key.rule, identity: key.identity, isHTTP1Only: true)
                uncountedTries += 1
                configuration.logger.debug("the server requires HTTP/1.1, sending again over HTTP/1.1", metadata: [
                    "url": "\(request.url.redacted)", "reason": "\(required)",
                ])
            } catch let requested as CertificateRequestedByRenegotiation {
                pool.release(connection, reusable: false)
                try checkMayTryAgain(deadline)
                // The handler was asked when the server asked: its answer (or its cancellation)
                // decides the next try.
                guard firstPart.withLockedValue({ $0 }) == nil, !answeredRenegotiation,
                    let challenge = (connection as? HTTP1Connection)?.certificateChallenge
                else { throw SecureSessionError.tlsFailure(requested.description) }
                // Kept by `renegotiationAnswers` once given: the next connection presents it.
                let answer = try await deadline.bound { try await challenge.answerGiven() }
                answeredRenegotiation = true
                uncountedTries += 1
                configuration.logger.debug("the server asked for a client certificate by renegotiating, sending again presenting the handler's answer", metadata: [
                    "url": "\(request.url.redacted)", "presents": "\(answer.identity?.leaf.subjectSummary ?? "no certificate")",
                ])
            } catch {
                pool.release(connection, reusable: false)
                // The session closed the connection under the request.
                if pool.hasShutDown { throw SecureSessionError.sessionShutDown }
                let error = (error as? ClosedWithoutCloseNotify)?.failure(answerBegun: firstPart.withLockedValue { $0 } != nil) ?? error
                guard case SecureSessionError.connectionFailed(let detail) = error, reused, attempt == 1, firstPart.withLockedValue({ $0 }) == nil,
                    !Task.isCancelled
                else { throw error }
                guard request.isReplayable else {
                    // (An HTTP/2 server closing an idle connection says so with a GOAWAY first.)
                    guard connection is HTTP1Connection else { throw error }
                    throw SecureSessionError.connectionFailed(
                        "\(detail) (on a connection kept from an earlier request, before any answer: the server may have closed it as idle just as the request went; a \(request.method.rawValue) is not sent again by itself, as it may have been processed, unless it carries an idempotency key)"
                    )
                }
                configuration.logger.debug("retrying on a new connection", metadata: ["url": "\(request.url.redacted)"])
            }
        }
    }

    /// Throws what ends a request that could be sent again: the session shut down, the task
    /// cancelled, or the request's deadline over (it closed the stream or connection, however the
    /// failure looked).
    private func checkMayTryAgain(_ deadline: Deadline) throws {
        if pool.hasShutDown { throw SecureSessionError.sessionShutDown }
        if Task.isCancelled { throw SecureSessionError.cancelled }
        if let ending = deadline.ending { throw ending }
    }

    static func isChallenge(_ head: HTTPResponseHead) -> Bool {
        head.status == .unauthorized && head.headers.contains(name: "WWW-Authenticate")
    }

    static func isRedirect(_ head: HTTPResponseHead) -> Bool {
        [301, 302, 303, 307, 308].contains(head.status.code) && head.headers.contains(name: "Location")
    }

    /// Where a redirect leads: its one `Location`. Several that differ (a server's bug, or a
    /// header injected beside the server's own) leave it to chance which one a client follows,
    /// so they are refused, as browsers refuse them.
    static func location(of head: HTTPResponseHead) throws -> String? {
        let locations = head.headers["Location"]
        guard let first = locations.first else { return nil }
        if let other = locations.first(where: { $0 != first }) {
            throw SecureSessionError.invalidResponse("the redirect names \(locations.count) different Locations ('\(first)', '\(other)'): which one to follow is left to chance")
        }
        return first
    }

    /// The connection a request needs. With a challenge handler (the request's, else the
    /// session's), the server trust of each new connection, and the server's request for a client
    /// certificate, are put to that handler; a request's own handler gets a connection of its own.
    func connectionKey(for request: SecureRequest) throws -> ConnectionKey {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw SecureSessionError.invalidURL("\(url.redacted): only https and http are supported")
        }
        let (host, parsedHost) = try Self.host(of: url)
        let isSecure = scheme == "https"
        let port = url.port ?? (isSecure ? 443 : 80)
        guard (1...65_535).contains(port) else { throw SecureSessionError.invalidURL("\(url.redacted): the port \(port) is not between 1 and 65535") }
        let handler = request.challengeHandler.map(HandlerIdentity.init) ?? sessionHandler
        let rule = configuration.transportRules?.rule(forHost: host)
        if let rule, !isSecure, !rule.allowsCleartext {
            throw SecureSessionError.refusedByTransportRules(
                host: rule.host,
                reason: "cleartext \(url.redacted) is not allowed (rule from \(rule.originDescription)); \(rule.cleartextRemedy) would allow it"
            )
        }
        var evaluator = handler.map { AnyServerTrustEvaluator(ServerTrustChallengeEvaluator(handler: $0, port: port)) } ?? configuration.trustEvaluator
        if let registry = configuration.pinSetRegistry, let set = registry.pinSet(forHost: host) {
            // The set is part of the connection's key: new pins never reuse a connection trusted
            // under the old ones.
            evaluator = AnyServerTrustEvaluator(PinSetEvaluator(evaluator, pinSet: set, origin: registry.source.description))
        }
        let name = parsedHost.name
        let proxy = configuration.proxies.proxy(
            isSecure: isSecure,
            host: name,
            address: configuration.addressOverrides.address(host: name, port: port) ?? name
        )
        // A proxy given a policy for its certificate must have one to judge: failing open
        // would pass through a proxy the caller meant to pin.
        if let proxy, proxy.trustEvaluator != nil, proxy.kind != .https {
            throw SecureSessionError.invalidURL("the proxy \(proxy) has a trust evaluator but no TLS to judge it by (an https:// proxy has)")
        }
        return ConnectionKey(
            isSecure: isSecure,
            host: name,
            port: port,
            identity: try request.clientIdentity ?? presentedIdentity(),
            evaluator: rule.map {
                AnyServerTrustEvaluator(TransportRuleEvaluator(
                    evaluator, rule: $0, certificateTransparency: configuration.certificateTransparencyLogs.map(CertificateTransparencyPolicy.init(logList:))
                ))
            } ?? evaluator,
            handler: handler,
            isSingleUse: request.challengeHandler != nil,
            rule: rule,
            proxy: proxy,
            isHTTP1Only: isSecure && configuration.httpVersions == .automatic && http1OnlyServers.value(for: HostAndPort(host: name, port: port)) != nil,
            evaluationTime: configuration.evaluationTime
        )
    }

    /// The client identity a new connection of the session presents now (unless its request has
    /// its own): the session's `clientIdentityFile`'s current one, else its `clientIdentity`.
    private func presentedIdentity() throws -> ClientIdentity? {
        guard let file = configuration.clientIdentityFile else { return configuration.clientIdentity }
        guard configuration.clientIdentity == nil else {
            throw SecureSessionError.invalidRequest(
                "the session has both a clientIdentity and a clientIdentityFile (\(file.paths.joined(separator: ", "))): set one"
            )
        }
        return file.identity
    }

    func requestHead(_ request: SecureRequest, key: ConnectionKey, body: RequestBodySource?) -> HTTPRequestHead {
        let defaultPort = key.isSecure ? 443 : 80
        let hostField = key.host.utf8.contains(UInt8(ascii: ":")) && ServerHost(key.host).isIPAddress ? "[\(key.host)]" : key.host
        let authority = key.port == defaultPort ? hostField : "\(hostField):\(key.port)"
        // `Host` first, as RFC 9110 §7.2 asks of user agents (unless the caller set one).
        var fields: [(String, String)] = []
        fields.reserveCapacity(request.headers.count + 5)
        if !request.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Host") }) { fields.append(("Host", authority)) }
        for field in request.headers { fields.append((field.name, field.value)) }
        var headers = HTTPHeaders(fields)
        var target = request.requestTarget
        // Cleartext through a proxy: the request names its server (absolute form, RFC 9112
        // §3.2.2) and carries the proxy's credentials. (TLS goes through a tunnel instead.)
        if !key.isSecure, let proxy = key.proxy, proxy.speaksHTTP {
            target = "http://\(authority)\(target)"
            if let authorization = proxy.authorization { headers.replaceOrAdd(name: "Proxy-Authorization", value: authorization) }
        }
        // The body's framing is the session's: a caller's Content-Length or Transfer-Encoding
        // that the body does not match (ten bytes announced on a GET without a body) would
        // leave the server waiting for bytes that never come, then read the next request on
        // the connection as them.
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if let body, body.length == nil {
            // Of unknown length: chunked (HTTP/2 drops the field and sends DATA frames).
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else if let bodyLength = body?.length {
            headers.add(name: "Content-Length", value: String(bodyLength))
        } else if [.post, .put, .patch].contains(request.method) {
            headers.add(name: "Content-Length", value: "0")
        }
        if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: "TransportSecurity/1") }
        // Said although HTTP/1.1 keeps connections alive anyway: Apache then tells how long it
        // keeps them idle (`Keep-Alive: timeout=N`, ``KeepAliveHint``), which it says only to
        // clients that ask. HTTP/2 drops the field.
        if !headers.contains(name: "Connection") { headers.add(name: "Connection", value: "keep-alive") }
        return HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue), uri: target, headers: headers)
    }

    /// The request a `status` redirect to `location` makes of `request`, or why it is not
    /// followed: a downgrade to http, a body of credentials or an exchange with an authorization
    /// server sent to another origin, an answer that must be signed traded for one that need not.
    private func redirected(_ request: SecureRequest, status: Int, location: String) throws -> SecureRequest {
        guard let given = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            throw SecureSessionError.invalidResponse("the redirect Location '\(location)' is not a URL")
        }
        // A known HSTS host is reached over https whatever the redirect says.
        let target = upgradedByHSTS(given)
        if request.url.scheme?.lowercased() == "https", target.scheme?.lowercased() == "http" {
            throw SecureSessionError.insecureRedirect(from: request.url, to: target)
        }
        var next = request
        next.url = target
        // 303, and 301/302 after a POST, become a GET without a body (as browsers and URLSession
        // do); a HEAD stays a HEAD (RFC 9110 §15.4.4: the retrieval is a GET or a HEAD).
        if (status == 303 && request.method != .head) || ([301, 302].contains(status) && request.method == .post) {
            next.method = .get
            next.body = nil
            next.bodyFile = nil
            next.bodyParts = nil
            next.bodyStream = nil
            next.headers.removeAll { ["content-type", "content-length", "content-digest"].contains($0.name.lowercased()) }
        }
        let leavesOrigin = ConnectionKey.serverName(of: target) != ConnectionKey.serverName(of: request.url)
        if leavesOrigin, !request.followsRedirectsToOtherOrigins {
            throw SecureSessionError.redirectRefused(
                status: status, from: request.url, to: target,
                reason: "an exchange with the authorization server (a token request, its metadata) follows no redirect to another origin, which would be handed the client's credentials"
            )
        }
        if leavesOrigin, request.bodyCarriesCredentials, next.body != nil || next.bodyFile != nil || next.bodyParts != nil || next.bodyStream != nil {
            throw SecureSessionError.redirectRefused(
                status: status, from: request.url, to: target,
                reason: "the request's body carries credentials, and following would send it to another origin"
            )
        }
        // An answer that must be signed is not traded for one that need not be.
        if let check = request.arrivalCheck, check.requires(request.url), !check.requires(target) {
            throw SecureSessionError.redirectRefused(
                status: status, from: request.url, to: target,
                reason: "the responses of \(request.url.host(percentEncoded: false) ?? "the host") must be signed (responseSignatures), and those of \(target.host(percentEncoded: false) ?? "the target") need not be"
            )
        }
        // Credentials and cookies stay with their origin (every field that carries one:
        // ``CredentialFields``, an API key among them): not carried to another host, nor to
        // another port or scheme of the same host (another server: curl's CVE-2022-27776); a
        // caller's Proxy-Authorization neither (the new URL may go through another proxy, or
        // through none, and an https one carries it inside the tunnel, to the server). Nor does
        // a Host field the caller wrote: it named the first server's virtual host, and the new
        // server is named by its own authority (as curl drops a custom Host on a redirect).
        // A DPoP proof is a credential too (RFC 9449), and so is an HTTP message signature
        // (RFC 9421), which another server could replay to the first. The request's own client
        // identity was given for its server: another one does not learn who the client is.
        if leavesOrigin {
            next.headers.removeAll {
                ["host", "signature", "signature-input"].contains($0.name.lowercased()) || CredentialFields.carriesCredential($0.name)
            }
            next.clientIdentity = nil
        }
        return next
    }
}

extension SecureResponse {
    func with(body: Data) -> SecureResponse {
        var response = self
        response.body = body
        return response
    }
}

/// Collects a body in memory, up to a limit: a body longer than the limit, or whose
/// `Content-Length` announces that it will be, is refused at its first byte past the limit (or at
/// its first part) with ``SecureSessionError/responseTooLarge(limit:)``.
final class BodyCollector: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private var collected = Data()

    init(limit: Int) { self.limit = limit }

    func append(_ buffer: ByteBuffer, of head: HTTPResponseHead) throws {
        try lock.withLock {
            if collected.isEmpty, let declared = head.headers.first(name: "Content-Length").flatMap({ Int($0) }), declared > limit {
                throw SecureSessionError.responseTooLarge(limit: limit)
            }
            guard buffer.readableBytes <= limit - collected.count else { throw SecureSessionError.responseTooLarge(limit: limit) }
            collected.append(contentsOf: buffer.readableBytesView)
        }
    }

    var data: Data { lock.withLock { collected } }

    /// Forgets what was collected (the body of an attempt that will be made again).
    func reset() { lock.withLock { collected = Data() } }
}

/// A connection that could not be made: nothing of the request was sent, so it may be retried.
/// Never leaves the session; callers see ``error``.
struct ConnectionNotEstablished: Error {
    let error: SecureSessionError
}

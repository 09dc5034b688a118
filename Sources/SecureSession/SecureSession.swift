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
/// let session = SecureSession(configuration: .init(tls: .init(
///     trustEvaluator: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)
/// )))
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
    let group: any EventLoopGroup
    let pool: ConnectionPool
    let tlsContexts: TLSContextCache
    let sessionHandler: HandlerIdentity?
    let reporter: PinFailureReporter?
    let instrumentation: SessionInstrumentation
    /// The servers that asked for HTTP/1.1 over HTTP/2 (``HTTP1Required``): their connections
    /// offer `http/1.1` alone through ALPN.
    let http1OnlyServers = BoundedMemory<HostAndPort, Void>()
    /// How long servers that do not say so keep idle HTTP/1.1 connections, as seen here.
    let idleLimits = ObservedIdleLimits()
    /// The answers challenge handlers gave to servers that asked for a client certificate by
    /// renegotiating (``CertificateRequestedByRenegotiation``): presented by the connections of
    /// the same key without asking.
    let renegotiationAnswers = RenegotiationAnswers()

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
        self.sessionHandler = configuration.features.challengeHandler.map(HandlerIdentity.init)
        let reportsPinFailures = configuration.tls.transportRules?.pinSets.contains { !$0.reportURLs.isEmpty } ?? false
        self.reporter = configuration.tls.pinFailureReporter ?? (reportsPinFailures ? PinFailureReporter(logger: configuration.logger) : nil)
        self.group = eventLoopGroup
        self.instrumentation = SessionInstrumentation(metrics: configuration.metricsFactory)
        self.pool = ConnectionPool(
            maximumPerKey: configuration.connections.maximumPerHost,
            idleTimeout: configuration.connections.idleTimeout,
            multiplexes: configuration.connections.httpVersions == .automatic
        )
        // One TLS context per kind of transport rule (one in all without rules).
        self.tlsContexts = TLSContextCache(httpVersions: configuration.connections.httpVersions, versions: TLSVersionBounds(configuration))
    }

    /// Sends `request` and returns the whole response, validated.
    public func send(_ request: SecureRequest) async throws -> SecureResponse {
        try await instrumentation.request(request) { try await sendMeasured(request) }
    }

    private func sendMeasured(_ request: SecureRequest) async throws -> SecureResponse {
        let body = BodyCollector(limit: configuration.memoryLimit(of: request))
        let check = configuration.responses.signatures.map(ArrivingResponseCheck.init)
        var request = request
        request.arrivalCheck = check
        // Only a retry needs the held body taken back.
        let startOver: (@Sendable () -> Bool)? = configuration.interceptor(for: request) != nil ? { @Sendable () -> Bool in
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
        if let violation = (request.validation ?? configuration.responses.validation).violation(in: response) { throw violation }
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
    /// needs ``SecureSessionConfiguration/Responses/decompression`` disabled and a request without a
    /// `Range` of its own (else ``SecureSessionError/invalidRequest(_:)``). A `206` that does not
    /// start where the file ends fails the download (``SecureSessionError/invalidResponse(_:underlying:)``).
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
        let check = configuration.responses.signatures.map(ArrivingResponseCheck.init)
        request.arrivalCheck = check
        if let requirement = configuration.responses.signatures, continuingPartialFile, requirement.applies(to: request.url) {
            throw SecureSessionError.invalidRequest(
                "the responses of \(request.url.host(percentEncoded: false) ?? "the host") must carry a verified signature (responses.signatures), and the bytes of a partial file came with no answer to verify: download the whole body"
            )
        }
        if continuingPartialFile {
            guard configuration.responses.decompression == .disabled else {
                throw SecureSessionError.invalidRequest("a partial file cannot be continued when the session decompresses bodies: ranges count the compressed bytes")
            }
            guard request.header("Range") == nil else {
                throw SecureSessionError.invalidRequest("a partial file cannot be continued by a request with a Range of its own")
            }
        }
        let file = try DownloadFile(destination: path, appending: continuingPartialFile)
        if check != nil, file.isDevice {
            throw SecureSessionError.invalidRequest("a download to a device or pipe is written as it arrives, before its signature could be verified (responses.signatures): download to a file")
        }
        // Under a signature requirement, a body is never spliced from two answers: each is
        // verified whole.
        let resumption = DownloadResumption(
            file: file,
            request: request,
            continuing: continuingPartialFile,
            decompression: configuration.responses.decompression,
            resumes: check == nil,
            logger: configuration.logger
        )
        do {
            // A file can take back a failed attempt's body (or keep it to continue); a pipe or
            // device cannot. Only a retry needs it.
            let startOver: (@Sendable () -> Bool)? = configuration.interceptor(for: request) != nil ? { @Sendable () -> Bool in
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
            if !resumption.fileWasComplete, let violation = (request.validation ?? configuration.responses.validation).violation(in: response) {
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
        let validation = request.validation ?? configuration.responses.validation
        let refused = BodyCollector(limit: configuration.memoryLimit(of: request))
        let verdict = NIOLockedValueBox<Bool?>(nil)
        let headHandedOver = LockedFlag()
        let check = configuration.responses.signatures.map(ArrivingResponseCheck.init)
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
    /// after a ``SecureSessionError/connectionFailed(_:underlying:)`` to tell "no network" from "the server
    /// refused". `ReachabilityStatus.unknown` when the routing table cannot be read.
    public func reachability(of url: URL) -> ReachabilityStatus {
        guard let target = try? reachabilityTarget(for: url) else { return .unknown }
        return (try? ReachabilityMonitor.currentStatus(of: target)) ?? .unknown
    }

    /// `url`'s host; an ``SecureSessionError/invalidURL(_:)`` when it has none or when no host
    /// name can be what `URL` decoded: `%00` would have the resolver look up the name before it
    /// while the rules, cookies and trust judged the whole.
    static func host(of url: URL) throws -> (text: String, parsed: ServerHost) {
        guard let host = url.host, !host.isEmpty else { throw SecureSessionError.invalidURL("\(url.redacted) has no host") }
        let parsed = ServerHost(host)
        if let problem = parsed.nameProblem { throw SecureSessionError.invalidURL("\(url.redacted): its host \(problem)") }
        return (host, parsed)
    }

    /// The host (or overridden address) a request to `url` connects to.
    func reachabilityTarget(for url: URL) throws -> ReachabilityTarget {
        let host = try Self.host(of: url).text
        let port = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
        return .host(configuration.connections.addressOverrides.address(host: host, port: port) ?? host)
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
}

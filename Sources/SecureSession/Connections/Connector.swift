import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSOCKS
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

/// Makes the session's connections: TCP, the TLS handshake (the verifier deciding the server,
/// ALPN choosing the HTTP version), then an ``HTTP1Connection`` or an ``HTTP2Connection``.
enum Connector {
    /// What a connection became once secured: HTTP/1.1 (set up as the caller asked) or HTTP/2.
    typealias Negotiated<HTTP1: Sendable> = NIONegotiatedHTTPVersion<HTTP1, HTTP2Pipeline>

    /// A connection made and secured (its TLS handshake over, the server trusted), its protocol
    /// negotiated and set up: what ``establish(key:tlsContext:proxyTLSContext:deadline:in:http1:discardHTTP1:)`` leaves.
    struct Established<HTTP1: Sendable> {
        let channel: any Channel
        let negotiated: Negotiated<HTTP1>
        /// The decision on the server's chain (`nil` over cleartext).
        let trustDecision: TrustDecision?
        let establishment: ConnectionEstablishment
        let certificateChallenge: ClientCertificateChallenge?
        /// The first error the channel met.
        let firstError: NIOLockedValueBox<(any Error)?>
    }

    /// An HTTP/1.1 connection's channel, and the watcher of requests that wait for `100 Continue`.
    private struct HTTP1Pipeline: Sendable {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        /// `nil` when bodies never wait (``SecureSessionConfiguration/expectContinue`` unset).
        let watcher: ContinueWatcher?
    }

    /// An HTTP/2 connection's multiplexer, and the record its `GOAWAY` watcher keeps.
    struct HTTP2Pipeline: Sendable {
        /// Opens request streams from any thread without waiting.
        let multiplexer: NIOHTTP2Handler.StreamMultiplexer
        /// The async view of the same multiplexer, kept for the connection's life (its inbound
        /// side would take the server's streams, which push being refused never come).
        let asyncMultiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>
        /// What either side said about the connection's end.
        let goAway: GoAwayRecord
        /// The `PING`s that check the server is still there.
        let probe: HTTP2LivenessProbe
        /// What the client's HTTP/2 handler found wrong in the server's frames.
        let violations: HTTP2ViolationRecord
    }

    /// What every connection of a session is made with: its configuration, event loops,
    /// pin-failure reporter and metrics, and what it remembers of servers.
    struct Environment: Sendable {
        let configuration: SecureSessionConfiguration
        let group: any EventLoopGroup
        let reporter: PinFailureReporter?
        let instrumentation: SessionInstrumentation
        /// The challenge handler's answers to servers that asked for a certificate by renegotiating.
        var renegotiationAnswers: RenegotiationAnswers? = nil
        /// The idle limits servers announced or were seen to keep.
        var idleLimits: ObservedIdleLimits? = nil
    }

    /// Connects to `key`'s server.
    static func connect(
        key: ConnectionKey,
        tlsContext: NIOSSLContext,
        proxyTLSContext: NIOSSLContext?,
        deadline: Deadline,
        in environment: Environment
    ) async throws -> any PooledConnection {
        let configuration = environment.configuration
        let decompression = configuration.decompression
        let waitsToContinue = configuration.expectContinue != nil
        let established = try await establish(
            key: key,
            tlsContext: tlsContext,
            proxyTLSContext: proxyTLSContext,
            deadline: deadline,
            in: environment,
            http1: { channel in
                channel.eventLoop.makeCompletedFuture { try http1Pipeline(on: channel, decompression: decompression, waitsToContinue: waitsToContinue) }
            },
            // An HTTP/1.1 async channel is closed through its owner, or swift-nio traps on its writer.
            discardHTTP1: { http1 in try? await http1.channel.executeThenClose { _, _ in } }
        )
        let firstError = established.firstError
        switch established.negotiated {
        case .http1_1(let http1):
            return try await HTTP1Connection.start(
                key: key,
                channel: http1.channel,
                watcher: http1.watcher,
                trustDecision: established.trustDecision,
                establishment: established.establishment,
                expectContinue: configuration.expectContinue,
                certificateChallenge: established.certificateChallenge,
                closingError: { firstError.withLockedValue { $0 } },
                idleLimits: environment.idleLimits
            )
        case .http2(let http2):
            return HTTP2Connection(
                key: key,
                channel: established.channel,
                multiplexer: http2.multiplexer,
                asyncMultiplexer: http2.asyncMultiplexer,
                goAway: http2.goAway,
                probe: http2.probe,
                violations: http2.violations,
                probeTimeout: configuration.connectTimeout,
                trustDecision: established.trustDecision,
                establishment: established.establishment,
                idleTimeout: configuration.idleConnectionTimeout,
                decompression: decompression,
                closingError: { firstError.withLockedValue { $0 } }
            )
        }
    }

    /// Connects to `key`'s server (through its proxy, if any), secures the connection (the
    /// verifier deciding the server), and sets up what ALPN chose: HTTP/1.1 through `http1`,
    /// HTTP/2 through the session's HTTP/2 pipeline. Over cleartext it is HTTP/1.1. Everything up
    /// to a set-up protocol is bounded by the connect timeout and the deadline.
    /// - Parameters:
    ///   - http1: Sets up HTTP/1.1 on the channel (the TLS handshake over, if any).
    ///   - discardHTTP1: Closes what `http1` set up, when the connection fails after it.
    static func establish<HTTP1: Sendable>(
        key: ConnectionKey,
        tlsContext: NIOSSLContext,
        proxyTLSContext: NIOSSLContext?,
        deadline: Deadline,
        in environment: Environment,
        http1: @escaping @Sendable (any Channel) -> EventLoopFuture<HTTP1>,
        discardHTTP1: @Sendable (HTTP1) async -> Void
    ) async throws -> Established<HTTP1> {
        typealias Negotiation = Negotiated<HTTP1>
        let configuration = environment.configuration
        let reporter = environment.reporter
        let instrumentation = environment.instrumentation
        let renegotiationAnswers = environment.renegotiationAnswers
        let clock = ContinuousClock()
        let began = clock.now
        let decisions = DecisionBox()
        let versions = TLSVersionBounds(configuration)
        // With a challenge handler, the server's certificate request goes to it, through a
        // context of the connection's own.
        let certificateChallenge = key.isSecure ? key.handler.map {
            ClientCertificateChallenge(
                handler: $0, host: key.host, port: key.port, sessionIdentity: key.identity,
                renegotiationAnswers: renegotiationAnswers, key: key
            )
        } : nil
        let sslContext: NIOSSLContext?
        do {
            sslContext = key.isSecure
                ? try certificateChallenge?.makeTLSContext(
                    rule: key.rule, httpVersions: key.isHTTP1Only ? .http1Only : configuration.httpVersions, versions: versions
                ) ?? tlsContext : nil
        } catch let error as SecureSessionError {
            throw error
        } catch {
            throw SecureSessionError.tlsFailure("cannot create the TLS context: \(error)")
        }
        let verifier: PeerTrustVerifier? =
            key.isSecure
            ? PeerTrustVerifier(
                evaluator: key.evaluator,
                host: key.host,
                systemStore: configuration.systemStore,
                evaluationTime: configuration.evaluationTime,
                options: configuration.trustEvaluationOptions,
                // A handler's answer is not a policy's: it is asked for every connection, however
                // rules or a pin set wrap it (a wrapped answer would otherwise be cached as theirs).
                cache: key.handler == nil ? configuration.decisionCache : nil,
                logger: configuration.logger
            ) : nil
        // Connecting may take neither longer than the connect timeout nor past the request's deadline.
        // A connect timeout of zero or less allows no connection at all.
        guard configuration.connectTimeout > .zero else {
            throw SecureSessionError.timeout(configuration.connectTimeout, during: RequestStage.connecting(to: "\(key)").description)
        }
        let connectLimit = max(min(configuration.connectTimeout, deadline.remaining), .milliseconds(1))
        // The limit a connect timeout reports: the request's own when it is the nearer one.
        let bindingLimit = configuration.connectTimeout <= deadline.remaining ? configuration.connectTimeout : deadline.limit
        let bootstrap = ClientBootstrap(group: environment.group)
            .connectTimeout(.nanoseconds(connectLimit.nanoseconds))
        let (channel, negotiation, handshake): (any Channel, EventLoopFuture<Negotiation>, EventLoopFuture<Void>)
        let address = configuration.addressOverrides.address(host: key.host, port: key.port) ?? key.host
        let proxy = key.proxy
        // The first error the channel meets, to explain a connection that closes right after
        // its handshake (a TLS alert from the server).
        let firstError = NIOLockedValueBox<(any Error)?>(nil)
        // The TLS version the server's handshake agreed.
        let negotiatedVersion = NIOLockedValueBox<TLSVersion?>(nil)
        if let proxy, let user = proxy.user, !proxy.speaksHTTP {
            // Credentials SOCKS5 cannot carry fail before any connection is made.
            do {
                try SOCKSPasswordHandshake.check(user: user, password: proxy.password ?? "", proxy: "\(proxy)")
            } catch {
                throw SecureSessionError.proxyFailure("\(error)")
            }
        }
        let socksTarget: SOCKSAddress? = if let proxy { try await socksAddress(of: address, port: key.port, through: proxy, key: key) } else { nil }
        let proxyTLS = proxy.flatMap { $0.kind == .https ? ProxyTLS(proxy: $0, configuration: configuration) : nil }
        let connecting = RequestStage.connecting(to: proxy.map { "the proxy \($0)" } ?? ConnectionFailureText.endpoint(address, key.port))
        deadline.enter(connecting)
        do {
            (channel, negotiation, handshake) = try await bootstrap.connect(host: proxy?.host ?? address, port: proxy?.port ?? key.port) { channel in
                let handshake = channel.eventLoop.makePromise(of: Void.self)
                // A SOCKS proxy tunnels every connection; an HTTP proxy tunnels TLS (cleartext
                // requests go to it in absolute form); an HTTPS proxy does the same inside TLS
                // of its own, which comes first.
                let tunnel: EventLoopFuture<Void>
                do {
                    let proxyReady = try proxyTLS.map { proxyTLS in
                        guard let proxyTLSContext else { throw SecureSessionError.tlsFailure("no TLS context for the proxy \(proxyTLS.proxy)") }
                        return try proxyTLS.install(on: channel, context: proxyTLSContext, firstError: firstError)
                    } ?? channel.eventLoop.makeSucceededVoidFuture()
                    if let proxy, let socksTarget {
                        tunnel = try SOCKSTunnel.open(on: channel, through: proxy, to: socksTarget, named: ConnectionFailureText.endpoint(address, key.port))
                    } else if let proxy, sslContext != nil {
                        tunnel = try openTunnel(on: channel, through: proxy, to: address, port: key.port)
                    } else {
                        tunnel = proxyReady
                    }
                } catch {
                    handshake.fail(error)
                    return channel.eventLoop.makeFailedFuture(error)
                }
                guard let sslContext, let verifier else {
                    // Cleartext: HTTP/1.1, to the server (through a SOCKS tunnel) or to an HTTP proxy.
                    let negotiation = tunnel.flatMap { http1(channel) }.map { Negotiation.http1_1($0) }
                    handshake.completeWith(negotiation.map { _ in () })
                    return channel.eventLoop.makeSucceededFuture((channel, negotiation, handshake.futureResult))
                }
                let negotiation = tunnel.flatMapThrowing {
                    try HandshakeWatcher.addVerifiedTLS(
                        to: channel,
                        context: sslContext,
                        verifier: verifier,
                        decisions: decisions,
                        watcher: HandshakeWatcher(promise: handshake, firstError: firstError, negotiatedVersion: negotiatedVersion)
                    )
                }.flatMap {
                    channel.configureHTTP2AsyncSecureUpgrade(
                        http1ConnectionInitializer: { channel in http1(channel) },
                        http2ConnectionInitializer: { channel in http2Pipeline(on: channel) }
                    )
                }.flatMap { $0 }
                // A tunnel that fails never starts the handshake.
                negotiation.whenFailure { handshake.fail($0) }
                return channel.eventLoop.makeSucceededFuture((channel, negotiation, handshake.futureResult))
            }
        } catch ChannelError.connectTimeout {
            throw SecureSessionError.timeout(bindingLimit, during: connecting.description)
        } catch {
            let through = proxy.map { " (through the proxy \($0))" } ?? ""
            throw SecureSessionError.connectionFailed("\(key)\(through): \(ConnectionFailureText.describe(error))")
        }
        let connected = clock.now
        let securing: RequestStage =
            key.isSecure ? .securing(key, proxy: proxy.map { "\($0)" }) : proxy.map { .tunnelling(key, proxy: "\($0)") } ?? .awaitingResponse(key)
        deadline.enter(securing)
        // Whatever the handshake's outcome, this connection offers the identity.
        if key.isSecure, let identity = key.offeredIdentity { instrumentation.offered(identity) }
        let negotiated: Negotiation
        let secured: ContinuousClock.Instant
        do {
            (negotiated, secured) = try await deadline.interrupting(with: { channel.close(promise: nil) }) {
                // The connect timeout bounds the whole: what the TCP connection took is spent.
                let left = max(connectLimit - (clock.now - began), .milliseconds(1))
                do {
                    return try await withDeadline(left, onTimeout: { channel.close(promise: nil) }) { _ in
                        try await handshake.get()
                        let negotiated = try await negotiation.get()
                        return (negotiated, clock.now)
                    }
                } catch SecureSessionError.timeout {
                    throw SecureSessionError.timeout(bindingLimit, during: securing.description)
                }
            }
        } catch let failure {
            // A channel that closed under the negotiation (`Output closed`) is explained by the
            // TLS alert it met, if any: a server refusing the client's certificate does so just
            // after TLS 1.3's handshake, while the HTTP/2 preface is being written.
            let met = firstError.withLockedValue { $0 }
            let error = failure is ChannelError ? met.flatMap { ResponseReader.isTLSError($0) ? $0 : nil } ?? failure : failure
            try? await channel.close()
            if case .http1_1(let http1)? = try? await negotiation.get() { await discardHTTP1(http1) }
            // A timeout stays a timeout; anything else before TLS with an HTTPS proxy was
            // established is the proxy's failure.
            if !(error is SecureSessionError), let failure = proxyTLS?.failure(error) { throw failure }
            if let decision = decisions.last { instrumentation.decided(decision, server: key.description) }
            try throwHandshakeFailure(error, key: key, decisions: decisions, certificateChallenge: certificateChallenge, reporter: reporter, versions: versions)
        }
        certificateChallenge?.handshakeCompleted()
        // A report-only pin set lets the connection through but its failure is reported.
        if let decision = decisions.last {
            reporter?.submitFailure(of: decision, under: key.rule, host: key.host, port: key.port)
            instrumentation.decided(decision, server: key.description)
        }
        instrumentation.connected(http2: negotiated.isHTTP2)
        // Built only when debug logging is on (the metadata is an autoclosure).
        let tlsVersion = negotiatedVersion.withLockedValue { $0 }.map(TLSProtocolVersion.init(nioVersion:))
        configuration.logger.debug("connected", metadata: {
            var connected: Logger.Metadata = ["to": "\(key)", "protocol": "\(negotiated.isHTTP2 ? "HTTP/2" : "HTTP/1.1")"]
            if let tlsVersion { connected["tls"] = "\(tlsVersion.displayName)" }
            if address != key.host { connected["address"] = "\(address)" }
            if let proxy { connected["proxy"] = "\(proxy)" }
            return connected
        }())
        let establishment = ConnectionEstablishment(connect: connected - began, tlsHandshake: key.isSecure ? secured - connected : nil, tlsVersion: tlsVersion)
        return Established(
            channel: channel,
            negotiated: negotiated,
            trustDecision: decisions.last,
            establishment: establishment,
            certificateChallenge: certificateChallenge,
            firstError: firstError
        )
    }

    /// What a SOCKS5 proxy is asked to connect to: an address as it is; for `socks5h` a name as it
    /// is (the proxy resolves it); for `socks5` a name resolved here first (off the event loops,
    /// on swift-nio's thread pool). `nil` for an HTTP proxy.
    private static func socksAddress(of address: String, port: Int, through proxy: HTTPProxy, key: ConnectionKey) async throws -> SOCKSAddress? {
        guard !proxy.speaksHTTP else { return nil }
        if let literal = try? SocketAddress(ipAddress: address, port: port) { return .address(literal) }
        if proxy.kind == .socks5h {
            // The name travels in one length byte (RFC 1928 §5).
            guard address.utf8.count <= 255 else {
                throw SecureSessionError.invalidURL("\(key): a host name longer than 255 bytes cannot go through a SOCKS proxy")
            }
            return .domain(address, port: port)
        }
        do {
            return .address(try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(address, port: port) })
        } catch {
            throw SecureSessionError.connectionFailed("\(key): cannot resolve \(address) for the SOCKS proxy \(proxy): \(ConnectionFailureText.describe(error))")
        }
    }

    /// Asks `proxy` for a tunnel to `address:port` through swift-nio's HTTP/1 codec, removed
    /// once the tunnel is open; the future succeeds then.
    private static func openTunnel(on channel: any Channel, through proxy: HTTPProxy, to address: String, port: Int) throws -> EventLoopFuture<Void> {
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        let encoder = HTTPRequestEncoder()
        // Bytes after the answer, in its read, come back as an error when the decoder leaves.
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .fireError))
        let target = address.inAuthorityForm + ":\(port)"
        try channel.pipeline.syncOperations.addHandler(encoder)
        try channel.pipeline.syncOperations.addHandler(decoder)
        try channel.pipeline.syncOperations.addHandler(
            ProxyTunnelHandler(target: target, authorization: proxy.authorization, proxy: "\(proxy)", codec: [encoder, decoder], tunnel: tunnel)
        )
        return tunnel.futureResult
    }

    /// HTTP/1.1 over `channel`, seen from async code.
    private static func http1Pipeline(on channel: any Channel, decompression: ResponseDecompression, waitsToContinue: Bool) throws -> HTTP1Pipeline {
        // swift-nio's client handlers; when bodies may wait for `100 Continue`, with
        // informational answers forwarded to the watcher (which keeps them from the rest).
        let watcher = waitsToContinue ? ContinueWatcher() : nil
        if let watcher {
            try channel.pipeline.syncOperations.addHandlers([
                HTTPRequestEncoder(),
                ByteToMessageHandler(HTTPResponseDecoder(informationalResponseStrategy: .forward)),
                NIOHTTPRequestHeadersValidator(),
                watcher,
            ])
        } else {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
        }
        try decompression.install(in: channel.pipeline.syncOperations)
        try channel.pipeline.syncOperations.addHandler(UnsolicitedResponseGuard())
        return HTTP1Pipeline(channel: try NIOAsyncChannel(wrappingChannelSynchronously: channel), watcher: watcher)
    }

    /// The largest response head taken, in bytes: 80 KiB, swift-nio's HTTP/1.1 parser's limit, so
    /// that HTTP/2 takes what HTTP/1.1 takes. Over HTTP/2 it is the decoded header list
    /// (SETTINGS_MAX_HEADER_LIST_SIZE; swift-nio-http2's default of 16 KiB refused, as a
    /// connection error, a head of 17.5 KB that nginx sent, curl read, and HTTP/1.1 took).
    static let responseHeadLimit = 80 * 1024

    /// How many bytes of one HTTP/2 response the server may send ahead of what the client has
    /// read: 8 MiB. A stream can carry at most one window per round trip, and HTTP/2's default of
    /// 64 KiB held a download 40 ms away to 1.6 MB/s (a 10 MB body took 11.5 s over HTTP/2 and
    /// 0.21 s over HTTP/1.1, whose TCP window grows by itself; BENCHMARKS.md). It is also the most data a stream
    /// whose reader stopped holds in memory (AsyncHTTPClient's figure; curl's is 10 MiB).
    static let http2StreamWindow = 8 << 20

    /// How many bytes of all of a connection's responses the server may send ahead of what has
    /// arrived: twice a stream's window, so that two downloads at once each get theirs. It is
    /// given back as data arrives, not as it is read, so a stopped stream never holds up the
    /// others.
    static let http2ConnectionWindow = 16 << 20

    /// HTTP/2 over `channel`: the frame handler (server push refused, so no stream is ever
    /// opened by the server) and a watcher of the connection's own frames: GOAWAYs of either side,
    /// PING acknowledgements, the handler's findings.
    ///
    /// The handler remembers the last 1,000 streams the client reset, not swift-nio-http2's 32:
    /// frames the server sent on a stream before its `RST_STREAM` arrived must be ignored (RFC
    /// 9113 §6.4), and swift-nio-http2 takes a frame on a reset stream it no longer remembers for
    /// a connection error. With 32, cancelling 34 requests at once, while their answers were on
    /// their way, ended the connection.
    ///
    /// The client's flow-control windows are ``http2StreamWindow`` per stream and
    /// ``http2ConnectionWindow`` for the connection, both open from the start (the stream window
    /// in the client's SETTINGS, the connection's by a WINDOW_UPDATE right after them), so that
    /// not even the first round trip is held to HTTP/2's 64 KiB.
    private static func http2Pipeline(on channel: any Channel) -> EventLoopFuture<HTTP2Pipeline> {
        var settings = NIOHTTP2Handler.Configuration()
        settings.connection.initialSettings = [
            // swift-nio-http2's default, for streams the server would open (none: push is off).
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: responseHeadLimit),
            HTTP2Setting(parameter: .enablePush, value: 0),
            HTTP2Setting(parameter: .initialWindowSize, value: http2StreamWindow),
        ]
        settings.connection.targetWindowSize = http2ConnectionWindow
        settings.stream.targetWindowSize = http2StreamWindow
        settings.connection.maximumRecentlyResetStreams = 1_000
        // swift-nio-http2 takes more than 200 RST_STREAMs in 30 s for HTTP/2 Rapid Reset, an attack
        // of clients on servers, and ends the connection. A server resets streams this client
        // opened, and some reset every upload they answer early (HAProxy, with CANCEL): the 201st
        // POST in 30 s failed. A window of no time counts none (a flood of frames on streams that
        // do not exist still counts as stream errors, and costs no more than WINDOW_UPDATEs,
        // which nobody counts).
        settings.stream.streamResetFrameRateLimit.windowLength = .zero
        return channel.eventLoop.makeCompletedFuture {
            let goAway = GoAwayRecord()
            let probe = HTTP2LivenessProbe()
            let violations = HTTP2ViolationRecord()
            let watcher = HTTP2ConnectionWatcher(record: goAway, probe: probe, violations: violations, channel: channel)
            let asyncMultiplexer = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                mode: .client,
                streamDelegate: nil,
                frameDelegate: watcher,
                configuration: settings
            ) { stream in
                stream.close()
            }
            try channel.pipeline.syncOperations.addHandler(watcher)
            // The connection's window starts at 64 KiB whatever the settings say (RFC 9113
            // §6.9.2) and swift-nio-http2 widens it only once data arrives: widened now, the
            // first round trip carries a whole stream window too.
            let widening = HTTP2Frame.FramePayload.windowUpdate(windowSizeIncrement: http2ConnectionWindow - 65_535)
            channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: widening), promise: nil)
            let multiplexer = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self).syncMultiplexer()
            return HTTP2Pipeline(multiplexer: multiplexer, asyncMultiplexer: asyncMultiplexer, goAway: goAway, probe: probe, violations: violations)
        }
    }

    /// Turns a failed handshake into the error the request reports: the rejected decision, a
    /// cancelled or rejected challenge, a transport rule's TLS requirements, or a TLS failure.
    private static func throwHandshakeFailure(
        _ error: any Error,
        key: ConnectionKey,
        decisions: DecisionBox,
        certificateChallenge: ClientCertificateChallenge?,
        reporter: PinFailureReporter?,
        versions: TLSVersionBounds
    ) throws -> Never {
        if let decision = decisions.last { reporter?.submitFailure(of: decision, under: key.rule, host: key.host, port: key.port) }
        if let error = error as? SecureSessionError { throw error }
        if let refusal = error as? ProxyTunnelHandler.Refusal { throw SecureSessionError.proxyFailure(refusal.description) }
        if let certificateChallenge, certificateChallenge.wasCancelled {
            throw SecureSessionError.challengeCancelled(certificateChallenge.space)
        }
        if let decision = decisions.last, !decision.isTrusted {
            let space = ProtectionSpace(host: key.host, port: key.port, isSecure: true, realm: nil, method: .serverTrust)
            switch decision.decidedBy {
            case ServerTrustChallengeEvaluator.cancelled: throw SecureSessionError.challengeCancelled(space)
            case ServerTrustChallengeEvaluator.rejectedSpace: throw SecureSessionError.protectionSpaceRejected(space)
            default: throw SecureSessionError.trustRejected(decision)
            }
        }
        if let rule = key.rule, rule.enforcesATS, isNegotiationFailure(error) {
            throw SecureSessionError.refusedByTransportRules(
                host: key.host,
                reason: "the TLS handshake failed under the rule (from \(rule.originDescription)): TLS ≥ \(rule.minimumTLSVersion.displayName.dropFirst(4))"
                    + (rule.requiresForwardSecrecy ? " with forward-secret (ECDHE) suites" : "")
                    + " is required (\(TLSFailureText.describe(error))); NSExceptionMinimumTLSVersion or NSExceptionRequiresForwardSecrecy = false relax it"
            )
        }
        let presented = certificateChallenge?.presentedCertificate ?? (key.identity != nil)
        // A session that narrowed its TLS versions says so when none was agreed.
        let narrowed = !versions.isDefault && isNegotiationFailure(error) ? " (the session allows \(versions.allowedDescription): minimumTLSVersion, maximumTLSVersion)" : ""
        throw SecureSessionError.tlsFailure(
            "\(key): \(TLSFailureText.describe(error, clientCertificatePresented: presented, presentedIdentity: key.presentedIdentity))\(narrowed)"
        )
    }

    /// Whether a handshake error says that client and server share no protocol version or
    /// cipher suite (what a transport rule's TLS settings cause).
    static func isNegotiationFailure(_ error: any Error) -> Bool {
        let text = String(describing: error).uppercased()
        return ["UNSUPPORTED_PROTOCOL", "NO_SHARED_CIPHER", "PROTOCOL_VERSION", "WRONG_VERSION_NUMBER", "HANDSHAKE_FAILURE", "NO_CIPHERS_AVAILABLE"]
            .contains { text.contains($0) }
    }
}

extension NIONegotiatedHTTPVersion {
    /// Whether ALPN chose HTTP/2.
    fileprivate var isHTTP2: Bool {
        if case .http2 = self { return true }
        return false
    }
}

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
    ) async throws -> any HTTPConnection {
        let configuration = environment.configuration
        let decompression = configuration.responses.decompression
        let waitsToContinue = configuration.connections.expectContinue != nil
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
                expectContinue: configuration.connections.expectContinue,
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
                probeTimeout: configuration.timeouts.connect,
                trustDecision: established.trustDecision,
                establishment: established.establishment,
                idleTimeout: configuration.connections.idleTimeout,
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
        let decisions = VerifierDecisions()
        let versions = TLSVersionBounds(configuration)
        // With a challenge handler, the server's certificate request goes to it, through a
        // context of the connection's own.
        let certificateChallenge = key.isSecure ? key.handler.map {
            ClientCertificateChallenge(
                handler: $0, host: key.host, port: key.port, sessionIdentity: key.identity,
                renegotiationAnswers: renegotiationAnswers, key: key
            )
        } : nil
        let sslContext = key.isSecure
            ? try certificateChallenge?.makeTLSContext(
                rule: key.rule, httpVersions: key.isHTTP1Only ? .http1Only : configuration.connections.httpVersions, versions: versions
            ) ?? tlsContext : nil
        let verifier = key.isSecure ? PeerEvaluation.verifier(for: key, configuration: configuration) : nil
        // Connecting may take neither longer than the connect timeout nor past the request's deadline.
        // A connect timeout of zero or less allows no connection at all.
        guard configuration.timeouts.connect > .zero else {
            throw SecureSessionError.timeout(configuration.timeouts.connect, during: RequestStage.connecting(to: "\(key)").description)
        }
        let connectLimit = max(min(configuration.timeouts.connect, deadline.remaining), .milliseconds(1))
        // The limit a connect timeout reports: the request's own when it is the nearer one.
        let bindingLimit = configuration.timeouts.connect <= deadline.remaining ? configuration.timeouts.connect : deadline.limit
        let bootstrap = ClientBootstrap(group: environment.group)
            .connectTimeout(.nanoseconds(connectLimit.nanoseconds))
        let (channel, negotiation, handshake): (any Channel, EventLoopFuture<Negotiation>, EventLoopFuture<Void>)
        let address = configuration.connections.addressOverrides.address(host: key.host, port: key.port) ?? key.host
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
                } catch let sessionError as SecureSessionError where sessionError.code == .timeout {
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
            do {
                try HandshakeFailure.throwing(error, key: key, decisions: decisions, certificateChallenge: certificateChallenge, reporter: reporter, versions: versions)
            } catch let failure as SecureSessionError {
                throw failure.through(proxy: proxy.map { "\($0)" })
            }
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
}

extension NIONegotiatedHTTPVersion {
    /// Whether ALPN chose HTTP/2.
    fileprivate var isHTTP2: Bool {
        if case .http2 = self { return true }
        return false
    }
}

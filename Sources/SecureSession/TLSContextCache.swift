import Foundation
import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// The session's TLS contexts: one for connections without transport rules, and one per
/// combination of TLS settings the rules ask for (minimum version, forward secrecy), made once.
final class TLSContextCache: @unchecked Sendable {
    /// The TLS settings of a rule that make a context differ.
    struct Settings: Hashable {
        let minimumTLSVersion: TLSProtocolVersion
        let enforcesATS: Bool
        let requiresForwardSecrecy: Bool

        init(_ rule: TransportRule) {
            minimumTLSVersion = rule.minimumTLSVersion
            enforcesATS = rule.enforcesATS
            requiresForwardSecrecy = rule.requiresForwardSecrecy
        }
    }

    private let identity: ClientIdentity?
    private let httpVersions: HTTPVersionPolicy
    private let lock = NSLock()
    private var contexts: [Settings?: NIOSSLContext] = [:]

    /// The context of TLS with HTTPS proxies, made when first needed.
    private var proxyContextMade: NIOSSLContext?

    init(identity: ClientIdentity?, httpVersions: HTTPVersionPolicy) {
        self.identity = identity
        self.httpVersions = httpVersions
    }

    /// The context for connections under `rule` (`nil`: no rules).
    func context(for rule: TransportRule?) throws -> NIOSSLContext {
        let settings = rule.map(Settings.init)
        return try lock.withLock {
            if let context = contexts[settings] { return context }
            var configuration = TLSConfiguration.transportSecurityClient(identity: identity)
            configuration.applicationProtocols = httpVersions.applicationProtocols
            if let rule { configuration.apply(rule) }
            do {
                let context = try NIOSSLContext(configuration: configuration)
                contexts[settings] = context
                return context
            } catch {
                throw SecureSessionError.tlsFailure("cannot create the TLS context: \(error)")
            }
        }
    }

    /// The context for TLS with an HTTPS proxy: no client certificate (the session's identity is
    /// for its servers), HTTP/1.1 offered through ALPN (requests to a proxy are HTTP/1.1).
    func proxyContext() throws -> NIOSSLContext {
        try lock.withLock {
            if let proxyContextMade { return proxyContextMade }
            var configuration = TLSConfiguration.transportSecurityClient(identity: nil)
            configuration.applicationProtocols = ["http/1.1"]
            do {
                let context = try NIOSSLContext(configuration: configuration)
                proxyContextMade = context
                return context
            } catch {
                throw SecureSessionError.tlsFailure("cannot create the TLS context for proxies: \(error)")
            }
        }
    }
}

import Foundation
import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// The session's TLS contexts: one for connections without transport rules, and one per
/// combination of TLS settings the rules ask for (minimum version, forward secrecy), each also
/// offering HTTP/1.1 alone for servers that asked for it; made once.
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

    private let httpVersions: HTTPVersionPolicy
    private let versions: TLSVersionBounds
    private let lock = NSLock()
    private var contexts: [ContextKey: NIOSSLContext] = [:]
    /// The most contexts kept: past it (identities renewed many times, or requests with
    /// identities of their own for many tenants) they are all dropped and made again as needed.
    static let contextLimit = 64

    /// What makes two contexts differ: the identity presented (``ClientIdentity/chainFingerprint``),
    /// the rule's settings and the HTTP versions offered.
    private struct ContextKey: Hashable {
        let identity: [UInt8]?
        let settings: Settings?
        let isHTTP1Only: Bool
    }

    /// The context of TLS with HTTPS proxies, made when first needed.
    private var proxyContextMade: NIOSSLContext?

    init(httpVersions: HTTPVersionPolicy, versions: TLSVersionBounds) {
        self.httpVersions = httpVersions
        self.versions = versions
    }

    /// The context for connections under `rule` (`nil`: no rules) presenting `identity` when a
    /// server asks for a certificate, offering HTTP/1.1 alone when `isHTTP1Only`, else the
    /// session's HTTP versions.
    func context(for rule: TransportRule?, identity: ClientIdentity?, isHTTP1Only: Bool = false) throws -> NIOSSLContext {
        let key = ContextKey(identity: identity?.chainFingerprint, settings: rule.map(Settings.init), isHTTP1Only: isHTTP1Only)
        return try lock.withLock {
            if let context = contexts[key] { return context }
            if contexts.count >= Self.contextLimit { contexts.removeAll() }
            let context = try TLSContextRecipe(
                presenting: .identity(identity),
                applicationProtocols: (isHTTP1Only ? .http1Only : httpVersions).applicationProtocols,
                rule: rule,
                versions: versions
            ).make()
            contexts[key] = context
            return context
        }
    }

    /// The context for TLS with an HTTPS proxy: no client certificate (the session's identity is
    /// for its servers), HTTP/1.1 offered through ALPN (requests to a proxy are HTTP/1.1).
    func proxyContext() throws -> NIOSSLContext {
        try lock.withLock {
            if let proxyContextMade { return proxyContextMade }
            let recipe = TLSContextRecipe(presenting: .identity(nil), applicationProtocols: ["http/1.1"], rule: nil, versions: versions)
            let context = try recipe.make("the TLS context for proxies")
            proxyContextMade = context
            return context
        }
    }
}

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
        let rule = configuration.tls.transportRules?.rule(forHost: host)
        if let rule, !isSecure, !rule.allowsCleartext {
            throw SecureSessionError.refusedByTransportRules(
                host: rule.host,
                reason: "cleartext \(url.redacted) is not allowed (rule from \(rule.originDescription)); \(rule.cleartextRemedy) would allow it"
            )
        }
        let name = parsedHost.name
        let proxy = configuration.connections.proxies.proxy(
            isSecure: isSecure,
            host: name,
            address: configuration.connections.addressOverrides.address(host: name, port: port) ?? name
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
            evaluator: PeerEvaluation.evaluator(forHost: host, port: port, handler: handler, rule: rule, configuration: configuration),
            handler: handler,
            isSingleUse: request.challengeHandler != nil,
            rule: rule,
            proxy: proxy,
            isHTTP1Only: isSecure && configuration.connections.httpVersions == .automatic && http1OnlyServers.value(for: HostAndPort(host: name, port: port)) != nil,
            evaluationTime: configuration.tls.evaluationTime
        )
    }

    /// The client identity a new connection of the session presents now (unless its request has
    /// its own): the session's `clientIdentityFile`'s current one, else its `clientIdentity`.
    private func presentedIdentity() throws -> ClientIdentity? {
        guard let file = configuration.tls.clientIdentityFile else { return configuration.tls.clientIdentity }
        guard configuration.tls.clientIdentity == nil else {
            throw SecureSessionError.invalidRequest(
                "the session has both a clientIdentity and a clientIdentityFile (\(file.paths.joined(separator: ", "))): set one"
            )
        }
        return file.identity
    }
}

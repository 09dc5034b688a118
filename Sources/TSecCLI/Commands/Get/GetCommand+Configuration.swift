import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

extension GetCommand {
    /// The rules of `--config`; every issue found in them goes to stderr.
    func loadRules(reportingTo terminal: CommandOutput) throws -> TransportSecurityConfiguration? {
        guard let config = trustOptions.config else { return nil }
        let (rules, issues) = try TransportSecurityConfiguration.load(contentsOf: config)
        for issue in issues { complain("tsec get: \(config): \(issue)", to: terminal) }
        return rules
    }

    func makeConfiguration(reportingTo terminal: CommandOutput) throws -> SecureSessionConfiguration {
        let evaluator = try policy.makeEvaluator(
            spkiPins: try trustOptions.spkiPins.map(SPKIPin.init),
            leafPins: try trustOptions.pinnedPublicKeys.flatMap(PinnedPublicKeyArgument.pins),
            insecure: trustOptions.insecure
        )
        var configuration = SecureSessionConfiguration(
            tls: .init(
                trustEvaluator: evaluator,
                clientIdentity: try identity.load(),
                systemStore: try policy.makeSystemStore(replacement: trustOptions.cacert),
                evaluationTime: policy.evaluationTime,
                transportRules: try loadRules(reportingTo: terminal)
            ),
            connections: .init(
                httpVersions: connectionOptions.http1Only ? .http1Only : .automatic,
                proxies: try makeProxies(),
                addressOverrides: ResolveOption.overrides(connectionOptions.resolve)
            ),
            timeouts: .init(connect: TimeLimit.duration(connectionOptions.connectTimeout), request: TimeLimit.duration(connectionOptions.maxTime)),
            responses: .init(maximumRedirects: connectionOptions.maxRedirs)
        )
        configuration.tls.minimumTLSVersion = connectionOptions.tls13OrLater ? .tls13 : connectionOptions.tls12OrLater ? .tls12 : nil
        configuration.tls.maximumTLSVersion = connectionOptions.tlsMax == "1.2" ? .tls12 : connectionOptions.tlsMax == "1.3" ? .tls13 : nil
        return configuration
    }

    /// For a server refused for a missing issuer whose certificates say where their issuers
    /// are published: that `--fetch-intermediates` would fetch them.
    static func fetchingHint(for decision: TrustDecision) -> String? {
        let lacking = decision.checks.compactMap(\.evaluation).first { $0.failures.contains { $0.code == .missingIssuer } }
        let urls = (lacking?.presentedChain ?? []).flatMap(\.issuerCertificateURLs)
        guard let url = urls.first(where: IntermediateFetchingEvaluator.isFetchable) else { return nil }
        return "tsec get: the server's certificates say where their issuers are published (\(url)); --fetch-intermediates fetches a missing intermediate from there"
    }

    /// What the OAuth token requests go through: the request's own configuration (policy, pins,
    /// rules, client identity, proxies), without its interceptor, cookies, HSTS file or
    /// response signature key (the key is the API's; a token endpoint does not sign with it).
    func tokenFetching(like configuration: SecureSessionConfiguration) -> SecureSessionConfiguration {
        var tokens = configuration
        tokens.features.interceptor = nil
        tokens.features.cookieJar = nil
        tokens.features.hsts = nil
        tokens.responses.signatures = nil
        return tokens
    }

    /// The configuration of the session fetching OCSP responses, CRLs and issuer certificates:
    /// the same store, time, proxies, address overrides, connect timeout and log as
    /// `configuration`.
    func sideFetching(like configuration: SecureSessionConfiguration) -> SecureSessionConfiguration {
        SecureSessionConfiguration(
            tls: .init(systemStore: configuration.tls.systemStore, evaluationTime: configuration.tls.evaluationTime),
            connections: .init(
                proxies: configuration.connections.proxies,
                addressOverrides: configuration.connections.addressOverrides
            ),
            timeouts: .init(connect: configuration.timeouts.connect),
            logger: configuration.logger
        )
    }

    /// `--proxy` for both schemes, else the environment's proxies; `--noproxy` replaces the
    /// environment's bypass list.
    func makeProxies() throws -> HTTPProxySettings {
        var proxies = try connectionOptions.proxy.map { text in
            let given = try HTTPProxy(url: text)
            return HTTPProxySettings(https: given, http: given)
        } ?? HTTPProxySettings.fromEnvironment()
        if !connectionOptions.proxyPins.isEmpty {
            // Pins for a proxy without TLS would be ignored: refused instead.
            guard proxies.https?.kind == .https || proxies.http?.kind == .https else {
                throw ValidationError("--proxy-pin-sha256 pins an https:// proxy, and no https:// proxy is used (-x or the environment)")
            }
            let evaluator = AnyServerTrustEvaluator(PublicKeysTrustEvaluator(pins: try connectionOptions.proxyPins.map(SPKIPin.init)))
            for keyPath in [\HTTPProxySettings.https, \HTTPProxySettings.http] where proxies[keyPath: keyPath]?.kind == .https {
                proxies[keyPath: keyPath]?.trustEvaluator = evaluator
            }
        }
        if let noproxy = connectionOptions.noproxy {
            proxies.bypass = noproxy.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return proxies
    }

    /// The HSTS store of `--hsts FILE`, loaded from the file when it exists; `nil` without it.
    func loadHSTS(logger: Logger) throws -> HSTSStore? {
        guard let hsts = stateOptions.hsts else { return nil }
        // `--hsts ''`: HSTS for this run only, as curl has it.
        guard !hsts.isEmpty, FileManager.default.fileExists(atPath: hsts) else { return HSTSStore(logger: logger) }
        let data = try ArgumentFile.read(hsts, as: "the HSTS file", limit: 16 << 20)
        return HSTSStore(try CurlHSTSFile.entries(in: String(decoding: data, as: UTF8.self), source: hsts), logger: logger)
    }

    /// The cookie jar of `-b FILE` and `-c FILE`, loaded from `-b`'s file; `nil` without either
    /// (or with `-b NAME=VALUE`, sent as a header).
    func makeCookieJar(logger: Logger) throws -> CookieJar? {
        let file = stateOptions.cookie.flatMap { $0.contains("=") ? nil : $0 }
        guard file != nil || stateOptions.cookieJar != nil else { return nil }
        let jar = CookieJar(logger: logger)
        guard let file, FileManager.default.fileExists(atPath: file) else { return jar }
        let data = try ArgumentFile.read(file, as: "the cookie file", limit: 16 << 20)
        for cookie in try NetscapeCookieFile.cookies(in: String(decoding: data, as: UTF8.self), source: file, at: Date()) {
            jar.store(cookie)
        }
        return jar
    }
}

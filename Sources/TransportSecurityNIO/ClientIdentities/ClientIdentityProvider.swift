import NIOCore
import NIOSSL

/// Chooses the client certificate when, and only when, a server asks for one during the
/// handshake (its `CertificateRequest`). Returning `nil` continues without a certificate;
/// throwing aborts the handshake with that error. May suspend (ask a user, read a vault).
///
/// The argument is the server name the client sent (SNI), if any.
public typealias ClientIdentityProvider = @Sendable (_ serverName: String?) async throws -> ClientIdentity?

extension TLSConfiguration {
    /// A client configuration like ``transportSecurityClient(identity:minimumTLSVersion:)`` whose
    /// client certificate is chosen by `identityProvider` at the moment a server requests one.
    /// Servers that do not ask never cause it to be called.
    /// - Parameters:
    ///   - identityProvider: Asked once per handshake in which the server requests a certificate.
    ///   - minimumTLSVersion: The lowest TLS version accepted.
    public static func transportSecurityClient(
        identityProvider: @escaping ClientIdentityProvider,
        minimumTLSVersion: TLSVersion = .tlsv12
    ) -> TLSConfiguration {
        var configuration = transportSecurityClient(identity: nil, minimumTLSVersion: minimumTLSVersion)
        // BoringSSL runs the certificate callback on a client only when the server sent a
        // CertificateRequest; the handshake waits for the promise.
        configuration.sslContextCallback = { values, promise in
            Task {
                do {
                    guard let identity = try await identityProvider(values.serverHostname) else {
                        return promise.succeed(.noChanges)
                    }
                    promise.succeed(NIOSSLContextConfigurationOverride(presenting: identity))
                } catch {
                    promise.fail(error)
                }
            }
        }
        return configuration
    }
}

extension NIOSSLContextConfigurationOverride {
    /// The change that makes a handshake present `identity`.
    package init(presenting identity: ClientIdentity) {
        self.init()
        certificateChain = identity.certificateChain.map { .certificate($0) }
        privateKey = .privateKey(identity.privateKey)
    }
}

import NIOCore
import NIOPosix
import NIOSSL
import TransportSecurity

/// Fetches the certificate chain a TLS server presents, without judging it: the TLS handshake is
/// abandoned as soon as the chain arrives (the seeds' `openssl s_client -showcerts` export).
public enum PeerChainFetcher {
    /// Why a chain could not be fetched.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// A sentence naming the server and the problem.
        public let description: String
    }

    /// Connects to `host:port` and returns the certificates it presents, leaf first.
    /// - Parameters:
    ///   - host: A DNS name (also sent as SNI) or an IP literal.
    ///   - port: The TCP port.
    ///   - serverName: The name sent as SNI instead of `host` (openssl's `-servername`): the
    ///     chain a server presents for that name when connecting by address.
    ///   - timeout: How long connecting and the handshake may take.
    ///   - group: Where the connection runs.
    public static func fetch(
        host: String,
        port: Int,
        serverName: String? = nil,
        timeout: TimeAmount = .seconds(10),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> [DERCertificate] {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        configuration.trustRoots = .certificates([])
        configuration.shutdownTimeout = .milliseconds(100)
        // The signatures and groups the session offers, so that any server it can reach (P-521,
        // Ed25519 keys) shows its chain.
        configuration.verifySignatureAlgorithms = TLSConfiguration.verifiedSignatureAlgorithms
        configuration.curves = TLSConfiguration.offeredGroups
        let context = try NIOSSLContext(configuration: configuration)
        let sni = ServerHost(serverName ?? host)
        let serverName = sni.isIPAddress ? nil : sni.name
        let channel: any Channel
        let received: EventLoopFuture<[NIOSSLCertificate]>
        do {
            (channel, received) = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: [NIOSSLCertificate].self)
                        let callback: NIOSSLCustomVerificationCallback = { certificates, verification in
                            promise.succeed(certificates)
                            verification.succeed(NIOSSLVerificationResult.failed)
                        }
                        let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName, customVerificationCallback: callback)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        channel.closeFuture.whenComplete { _ in
                            promise.fail(Failure(description: "\(ConnectionFailureText.endpoint(host, port)) closed the connection before presenting a certificate"))
                        }
                        return (channel, promise.futureResult)
                    }
                }
        } catch {
            throw Failure(description: "cannot connect to \(ConnectionFailureText.endpoint(host, port)): \(ConnectionFailureText.describe(error))")
        }
        let timer = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        defer {
            timer.cancel()
            channel.close(promise: nil)
        }
        let certificates = try await received.get()
        do {
            return try certificates.map { try DERCertificate(derBytes: $0.toDERBytes()) }
        } catch {
            throw Failure(description: "\(ConnectionFailureText.endpoint(host, port)) presented a certificate that does not parse: \(error)")
        }
    }
}

#if GRPC
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder

/// A grpc-swift server on 127.0.0.1, on a port the system chose, serving `services` until
/// stopped.
public struct GRPCTestServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let server: GRPCServer<HTTP2ServerTransport.Posix>
    private let serving: Task<Void, any Error>

    /// Starts the server with `security` and answers once it listens.
    public init(_ security: HTTP2ServerTransport.Posix.TransportSecurity, services: [any RegistrableRPCService], interceptors: [any ServerInterceptor] = []) async throws {
        let transport = HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: security)
        let server = GRPCServer(transport: transport, services: services, interceptors: interceptors)
        self.server = server
        serving = Task { try await server.serve() }
        guard let port = try await transport.listeningAddress.ipv4?.port else {
            throw RPCError(code: .internalError, message: "the server has no IPv4 address")
        }
        self.port = port
    }

    /// grpc-swift's own TLS (no client certificates) presenting `chain`.
    public init(presenting chain: [IssuedCertificate], services: [any RegistrableRPCService], interceptors: [any ServerInterceptor] = []) async throws {
        try await self.init(
            .tls(
                certificateChain: [.bytes(Array(chain.pemBundle.utf8), format: .pem)],
                privateKey: .bytes(Array(chain[0].privateKeyPEM.utf8), format: .pem)
            ),
            services: services,
            interceptors: interceptors
        )
    }

    /// Shuts the server down gracefully and waits until it has.
    public func stop() async {
        server.beginGracefulShutdown()
        _ = try? await serving.value
    }
}
#endif

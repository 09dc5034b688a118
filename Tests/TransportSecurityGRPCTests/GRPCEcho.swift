#if GRPC
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder
import Synchronization
import TestServers
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO

/// Messages as raw bytes: the tests' one method needs no Protocol Buffers.
struct RawBytes: MessageSerializer, MessageDeserializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
        serializedMessageBytes.withUnsafeBytes { Array($0) }
    }
}

/// `/tsec.Echo/Echo`, answering `WHO|MESSAGE`: who the client is (its SPIFFE ID or subject,
/// from ``GRPCCore/ServerContext/peerIdentity(verifiedBy:)`` with the service's `verifier`;
/// `anonymous` without a certificate, `unknown` for one no validated path vouches for) and
/// what it sent. It counts the calls that reached it.
struct EchoService: RegistrableRPCService {
    static let method = MethodDescriptor(fullyQualifiedService: "tsec.Echo", method: "Echo")

    /// The server's verifier, which vouches for clients resuming their TLS sessions.
    var verifier: PeerTrustVerifier?
    private let count = Counter()
    /// How many calls reached the service.
    var calls: Int { count.value }

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(forMethod: Self.method, deserializer: RawBytes(), serializer: RawBytes()) { [count, verifier] request, context in
            count.increment()
            var message: [UInt8] = []
            for try await part in request.messages { message += part }
            let who: String
            do {
                who = try context.peerIdentity(verifiedBy: verifier).map { "\($0)" } ?? "anonymous"
            } catch is PeerIdentityUnavailable {
                who = "unknown"
            }
            return StreamingServerResponse(single: ServerResponse(message: Array("\(who)|".utf8) + message))
        }
    }

    final class Counter: Sendable {
        private let state = Mutex(0)
        var value: Int { state.withLock { $0 } }
        func increment() { state.withLock { $0 += 1 } }
    }
}

/// A grpc-swift server on 127.0.0.1 with the echo service, on a port the system chose.
struct EchoServer {
    let service: EchoService
    private let server: GRPCTestServer
    var port: Int { server.port }

    /// The server, serving `services` beside the echo service, whose `verifier` vouches for
    /// clients resuming their TLS sessions.
    init(
        _ security: HTTP2ServerTransport.Posix.TransportSecurity, services: [any RegistrableRPCService] = [], interceptors: [any ServerInterceptor] = [],
        verifier: PeerTrustVerifier? = nil
    ) async throws {
        service = EchoService(verifier: verifier)
        server = try await GRPCTestServer(security, services: [service] + services, interceptors: interceptors)
    }

    /// grpc-swift's own TLS server (no client certificates) presenting `chain`.
    init(presenting chain: [IssuedCertificate], interceptors: [any ServerInterceptor] = []) async throws {
        service = EchoService()
        server = try await GRPCTestServer(presenting: chain, services: [service], interceptors: interceptors)
    }

    func stop() async {
        await server.stop()
    }
}

/// Every decision a verifier made, in order.
final class DecisionLog: Sendable {
    private let state = Mutex<[TrustDecision]>([])
    var decisions: [TrustDecision] { state.withLock { $0 } }
    var record: @Sendable (TrustDecision) -> Void { { decision in self.state.withLock { $0.append(decision) } } }
}

/// Calls `/tsec.Echo/Echo` with "ping" through `transport`, failing at once rather than waiting
/// for a connection that cannot be made, and closes the transport.
func echo(_ transport: HTTP2ClientTransport.Posix) async throws -> String {
    try await withGRPCClient(transport: transport) { client in try await ping(client) }
}

/// Calls `/tsec.Echo/Echo` with "ping" through `client`, with `metadata`, retrying the
/// `retrying` codes (up to `attempts` attempts) when there are any.
func ping(
    _ client: GRPCClient<HTTP2ClientTransport.Posix>,
    metadata: Metadata = [:],
    retrying codes: Set<Status.Code> = [],
    attempts: Int = 2
) async throws -> String {
    var options = CallOptions.defaults
    options.timeout = .seconds(15)
    options.waitForReady = false
    if !codes.isEmpty {
        options.executionPolicy = .retry(RetryPolicy(
            maxAttempts: attempts, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(50), backoffMultiplier: 2, retryableStatusCodes: codes
        ))
    }
    return try await client.unary(
        request: ClientRequest(message: Array("ping".utf8), metadata: metadata),
        descriptor: EchoService.method,
        serializer: RawBytes(),
        deserializer: RawBytes(),
        options: options
    ) { response in
        String(decoding: try response.message, as: UTF8.self)
    }
}

/// The `RPCError` `body` fails with; `nil` when it succeeds or fails otherwise.
func rpcError(_ body: () async throws -> String) async -> RPCError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? RPCError
    }
}

/// The code of the `RPCError` `body` fails with; `nil` when it succeeds or fails otherwise.
func rpcErrorCode(_ body: () async throws -> String) async -> RPCError.Code? {
    await rpcError(body)?.code
}

/// A transport to 127.0.0.1:`port` decided by `verifier`.
func verifiedTransport(
    port: Int,
    _ verifier: PeerTrustVerifier,
    identity: ClientIdentity? = nil,
    onDecision: (@Sendable (TrustDecision) -> Void)? = nil
) throws -> HTTP2ClientTransport.Posix {
    try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: port), verifiedBy: verifier, identity: identity, onDecision: onDecision)
}

/// A transport to 127.0.0.1:`port` with grpc-swift's own TLS settings, `authority` the server
/// name it sends and checks.
func grpcTLSTransport(port: Int, authority: String, _ security: HTTP2ClientTransport.Posix.TransportSecurity) throws -> HTTP2ClientTransport.Posix {
    var config = HTTP2ClientTransport.Posix.Config.defaults
    config.http2.authority = authority
    return try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: security, config: config)
}
#endif

#if GRPC
import CircuitBreaking
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder
import SecureSession
import Synchronization
import TestServers
import Testing
import NIOSSL
import TransportSecurity

@testable import TransportSecurityGRPC

/// gRPC calls through a server's circuit (`CircuitBreakingInterceptor`), against grpc-swift's
/// own server behind an interceptor that answers with a chosen status while told to.
@Suite("gRPC: a circuit breaker per server")
struct GRPCCircuitBreakerTests {
    let lab = try! TrustLab()

    /// Two failures in a row open a circuit for 300 ms.
    static func breaker() -> CircuitBreaker {
        CircuitBreaker(policy: CircuitBreakerPolicy(failureThreshold: 2, openDuration: .milliseconds(300)))
    }

    @Test("calls answered UNAVAILABLE open the server's circuit: the next fails at once, UNAVAILABLE with the refusal as its cause, nothing sent; after the open time one trial goes and its answer closes the circuit, shared with the HTTP requests to the same server")
    func opensAndCloses() async throws {
        let outage = Outage(answering: .unavailable)
        let server = try await EchoServer(presenting: lab.chain(.legitimate), interceptors: [outage])
        let breaker = Self.breaker()
        let interceptor = CircuitBreakingInterceptor(breaker, host: "127.0.0.1", port: server.port)
        #expect(interceptor.server == "https://127.0.0.1:\(server.port)")
        let httpView = URL(string: "https://127.0.0.1:\(server.port)/")!

        let (failures, refused, recovered) = try await withGRPCClient(
            transport: verifiedTransport(port: server.port, lab.serverVerifier()),
            interceptors: [interceptor]
        ) { client in
            let failures = [await rpcError { try await ping(client) }, await rpcError { try await ping(client) }]
            let refused = await rpcError { try await ping(client) }
            outage.isDown = false
            try await Task.sleep(for: .milliseconds(350))
            return (failures, refused, try await ping(client))
        }
        await server.stop()

        #expect(failures.map { $0?.code } == [.unavailable, .unavailable])
        #expect(failures.allSatisfy { $0?.message == "down for maintenance" })
        #expect(refused?.code == .unavailable)
        guard let open = refused?.cause as? CircuitOpen else {
            Issue.record("cause: \(String(describing: refused?.cause))")
            return
        }
        #expect(open.server == "https://127.0.0.1:\(server.port)" && open.failures == 2)
        #expect(open.lastFailure == "unavailable: down for maintenance")
        #expect(refused?.message.hasPrefix("not sent: the circuit of https://127.0.0.1:\(server.port) is open") == true, "\(refused?.message ?? "")")
        #expect(outage.calls == 3, "two failures and the trial reached the server; the refused call did not")
        #expect(recovered == "anonymous|ping")
        #expect(breaker.status(of: httpView).state == .closed)
        #expect(breaker.statuses().isEmpty)
    }

    @Test("a server the verifier rejects fails its calls before they have a stream (no interceptor sees them), and answers other than UNAVAILABLE are successes: the circuit stays closed")
    func neutralAndAnswered() async throws {
        let outage = Outage(answering: .notFound)
        let server = try await EchoServer(presenting: lab.chain(.legitimate), interceptors: [outage])
        let breaker = Self.breaker()
        let interceptor = CircuitBreakingInterceptor(breaker, host: "127.0.0.1", port: server.port)
        let wrongPin = lab.serverVerifier(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.rogueRoot.der]))
        var rejections: [RPCError?] = []
        for _ in 0..<3 {
            rejections.append(await rpcError {
                try await withGRPCClient(transport: verifiedTransport(port: server.port, wrongPin), interceptors: [interceptor]) { try await ping($0) }
            })
        }
        let answers = try await withGRPCClient(transport: verifiedTransport(port: server.port, lab.serverVerifier()), interceptors: [interceptor]) { client in
            [await rpcError { try await ping(client) }, await rpcError { try await ping(client) }, await rpcError { try await ping(client) }]
        }
        await server.stop()

        #expect(rejections.allSatisfy { $0?.code == .unavailable && $0?.cause is ServerTrustRejection }, "\(rejections)")
        #expect(answers.map { $0?.code } == [.notFound, .notFound, .notFound])
        #expect(outage.calls == 3)
        #expect(breaker.statuses().isEmpty, "\(breaker.statuses())")
    }

    @Test("what a call's error tells: UNAVAILABLE a connection failure (a TLS failure when the TLS handshake failed, counted only if the policy says so), a rejected server nothing, DEADLINE_EXCEEDED a timeout, CANCELLED nothing, any other status an answer")
    func outcomes() async throws {
        let interceptor = CircuitBreakingInterceptor(CircuitBreaker(), host: "api.example.test")
        let withTLS = CircuitBreakingInterceptor(CircuitBreaker(policy: CircuitBreakerPolicy(countedFailures: [.connectionFailure, .timeout, .tlsFailure])), host: "api.example.test")
        let rejected = await SecurityPolicy.default.evaluate(
            ServerTrust(chain: lab.chain(.legitimate).map(\.der), policy: .ssl(lab.host), systemStore: .empty, evaluationTime: lab.pki.now),
            forHost: lab.host
        )
        let rejection = RPCError(code: .unavailable, message: "rejected", cause: ServerTrustRejection(decision: rejected, host: lab.host))
        let handshake = RPCError(code: .unavailable, message: "handshake", cause: RPCError(code: .unavailable, message: "inner", cause: NIOSSLError.handshakeFailed(.sslError([]))))
        #expect(interceptor.outcome(of: RPCError(code: .unavailable, message: "down")) == .failure("unavailable: down"))
        #expect(interceptor.outcome(of: rejection) == .neutral)
        #expect(interceptor.outcome(of: handshake) == .neutral, "TLS failures are not counted by default")
        #expect(withTLS.outcome(of: handshake) == .failure("unavailable: \(handshake.message)"))
        #expect(interceptor.outcome(of: RPCError(code: .deadlineExceeded, message: "slow")) == .failure("deadlineExceeded: slow"))
        #expect(interceptor.outcome(of: RPCError(code: .cancelled, message: "gone")) == .neutral)
        #expect(interceptor.outcome(of: RPCError(code: .notFound, message: "no such payment")) == .success)
        #expect(interceptor.outcome(of: CancellationError()) == .neutral)
        let whileCancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return interceptor.outcome(of: RPCError(code: .unavailable, message: "down"))
        }
        #expect(await whileCancelled.value == .neutral)
        #expect("\(interceptor)" == "CircuitBreakingInterceptor(https://api.example.test:443)")
    }

    @Test("a server that cannot be reached is grpc-swift's to fail (its channel's transient failure, at once without waitForReady): interceptors never see the call, and the circuit stays closed")
    func unreachable() async throws {
        let stopped = try await EchoServer(presenting: lab.chain(.legitimate))
        let port = stopped.port
        await stopped.stop()
        let breaker = Self.breaker()
        let interceptor = CircuitBreakingInterceptor(breaker, host: "127.0.0.1", port: port)
        let errors = try await withGRPCClient(transport: verifiedTransport(port: port, lab.serverVerifier()), interceptors: [interceptor]) { client in
            [await rpcError { try await ping(client) }, await rpcError { try await ping(client) }, await rpcError { try await ping(client) }]
        }
        #expect(errors.map { $0?.code } == [.unavailable, .unavailable, .unavailable])
        #expect(errors.dropFirst().allSatisfy { $0?.message.contains("transient failure state") == true }, "\(errors)")
        #expect(breaker.statuses().isEmpty)
    }
}

/// Answers every call with `code` while ``isDown``, and counts the calls that reached it.
final class Outage: ServerInterceptor {
    private let state = Mutex((isDown: true, calls: 0))
    let code: RPCError.Code

    init(answering code: RPCError.Code) {
        self.code = code
    }

    var isDown: Bool {
        get { state.withLock { $0.isDown } }
        set { state.withLock { $0.isDown = newValue } }
    }

    var calls: Int { state.withLock { $0.calls } }

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>,
        context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let isDown = state.withLock { state in
            state.calls += 1
            return state.isDown
        }
        if isDown { throw RPCError(code: code, message: "down for maintenance") }
        return try await next(request, context)
    }
}
#endif

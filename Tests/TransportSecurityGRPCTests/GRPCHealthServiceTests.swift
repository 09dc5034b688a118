#if GRPC
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder
import Synchronization
import Testing
import TransportSecurity
import TransportSecurityNIO

@testable import TransportSecurityGRPC

@Suite("gRPC health service")
struct GRPCHealthServiceTests {
    let lab = try! TrustLab()

    /// Runs `body` with a client of a grpc-swift server serving `health` over mutual TLS (the
    /// mesh's clients admitted), the client presenting the checkout workload's certificate.
    func withHealthServer(_ health: GRPCHealthService, _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Void) async throws {
        let mesh = try Mesh(lab)
        let server = try await EchoServer(
            .verifyingClients(with: try mesh.clientVerifier(lab, allowing: ["spiffe://payments.example"]), presenting: identity(lab.chain(.legitimate))),
            services: [health]
        )
        let transport = try verifiedTransport(port: server.port, lab.serverVerifier(), identity: identity([mesh.checkout]))
        try await withGRPCClient(transport: transport) { client in try await body(client) }
        await server.stop()
    }

    @Test("Check: the statuses set, NOT_FOUND for a service never set; a shutdown makes every one NOT_SERVING and ignores new ones until resumed")
    func check() async throws {
        let health = GRPCHealthService()
        health.setStatus(.notServing, of: "payments.v1.Payments")
        try await withHealthServer(health) { client async throws in
            #expect(try await GRPCHealthCheck.status(through: client) == .serving)
            #expect(try await GRPCHealthCheck.status(of: "payments.v1.Payments", through: client) == .notServing)
            await #expect {
                _ = try await GRPCHealthCheck.status(of: "tsec.Unknown", through: client)
            } throws: { error in
                (error as? RPCError)?.code == .notFound && (error as? RPCError)?.message == "unknown service 'tsec.Unknown'"
            }
            health.setStatus(.serving, of: "payments.v1.Payments")
            #expect(try await GRPCHealthCheck.status(of: "payments.v1.Payments", through: client) == .serving)

            health.beginShutdown()
            #expect(try await GRPCHealthCheck.status(through: client) == .notServing)
            health.setStatus(.serving, of: "")
            #expect(try await GRPCHealthCheck.status(through: client) == .notServing, "ignored while shut down")
            health.resume()
            #expect(try await GRPCHealthCheck.status(of: "payments.v1.Payments", through: client) == .serving)
        }
    }

    @Test("Watch: the status now (SERVICE_UNKNOWN for a service not set), then each change and only changes; a shutdown sends NOT_SERVING and ends the stream with OK; a watch begun during a shutdown ends at once; a cancelled watch is forgotten")
    func watch() async throws {
        let health = GRPCHealthService()
        try await withHealthServer(health) { client async throws in
            let seen = Mutex<[GRPCHealthCheck.ServingStatus]>([])
            let watching = Task {
                try await Self.watch("payments.v1.Payments", through: client) { status in seen.withLock { $0.append(status) } }
            }
            try await Self.waitUntil { seen.withLock { $0 } == [.serviceUnknown] }
            #expect(health.watcherCount == 1)
            health.setStatus(.serving, of: "payments.v1.Payments")
            try await Self.waitUntil { seen.withLock { $0 } == [.serviceUnknown, .serving] }
            health.setStatus(.serving, of: "payments.v1.Payments")
            health.setStatus(.notServing, of: "payments.v1.Payments")
            try await Self.waitUntil { seen.withLock { $0 } == [.serviceUnknown, .serving, .notServing] }
            health.setStatus(.serving, of: "payments.v1.Payments")
            try await Self.waitUntil { seen.withLock { $0 }.count == 4 }

            health.beginShutdown()
            try await watching.value
            #expect(seen.withLock { $0 } == [.serviceUnknown, .serving, .notServing, .serving, .notServing], "the stream ended, with OK")
            #expect(health.watcherCount == 0)

            let duringShutdown = Mutex<[GRPCHealthCheck.ServingStatus]>([])
            try await Self.watch("", through: client) { status in duringShutdown.withLock { $0.append(status) } }
            #expect(duringShutdown.withLock { $0 } == [.notServing])

            health.resume()
            let cancelled = Task { try await Self.watch("", through: client) { _ in } }
            try await Self.waitUntil { health.watcherCount == 1 }
            cancelled.cancel()
            _ = await cancelled.result
            try await Self.waitUntil { health.watcherCount == 0 }
        }
    }

    @Test("GRPCHealthCheck.watch: returning from the body ends the call (the server forgets the watch) and gives what it returned; a timeout bounds the whole watch (DEADLINE_EXCEEDED after the statuses heard); a server without the health service fails UNIMPLEMENTED")
    func watchEndings() async throws {
        let health = GRPCHealthService(statuses: ["": .serving, "payments.v1.Payments": .notServing])
        try await withHealthServer(health) { client async throws in
            let waiting = Task {
                try await GRPCHealthCheck.watch(of: "payments.v1.Payments", through: client) { statuses in
                    var heard: [GRPCHealthCheck.ServingStatus] = []
                    for try await status in statuses {
                        heard.append(status)
                        if status == .serving { break }
                    }
                    return heard
                }
            }
            try await Self.waitUntil { health.watcherCount == 1 }
            health.setStatus(.serving, of: "payments.v1.Payments")
            #expect(try await waiting.value == [.notServing, .serving])
            try await Self.waitUntil { health.watcherCount == 0 }

            var bounded = CallOptions.defaults
            bounded.timeout = .seconds(1)
            let heard = Mutex<[GRPCHealthCheck.ServingStatus]>([])
            let started = ContinuousClock.now
            await #expect {
                try await GRPCHealthCheck.watch(through: client, options: bounded) { statuses in
                    for try await status in statuses { heard.withLock { $0.append(status) } }
                }
            } throws: { error in
                (error as? RPCError)?.code == .deadlineExceeded
            }
            #expect(heard.withLock { $0 } == [.serving])
            #expect(ContinuousClock.now - started < .seconds(5))
            try await Self.waitUntil { health.watcherCount == 0 }
        }

        let withoutHealth = try await EchoServer(presenting: lab.chain(.legitimate))
        let transport = try verifiedTransport(port: withoutHealth.port, lab.serverVerifier())
        _ = try await withGRPCClient(transport: transport) { client in
            await #expect {
                try await GRPCHealthCheck.watch(through: client) { statuses in
                    for try await _ in statuses {}
                }
            } throws: { error in
                (error as? RPCError)?.code == .unimplemented
            }
        }
        await withoutHealth.stop()
    }

    @Test("gRPC's C core as the client (python3-grpcio over mutual TLS, messages by python3-protobuf): Check of the server and of an unknown service, then a Watch told of a change and ended by the shutdown")
    func coreClient() async throws {
        let lab = try TrustLab(pki: PKI(now: Date()))
        let mesh = try Mesh(lab)
        let health = GRPCHealthService()
        let server = try await EchoServer(
            .verifyingClients(with: try mesh.clientVerifier(lab, allowing: ["spiffe://payments.example/ns/checkout/*"]), presenting: identity(lab.chain(.legitimate))),
            services: [health]
        )
        let folder = NSTemporaryDirectory() + "tsec-grpc-health-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, text) in [("roots.pem", lab.systemRoots.pemBundle), ("chain.pem", mesh.checkout.pemString), ("key.pem", try mesh.checkout.privateKeyPEM)] {
            try text.write(toFile: "\(folder)/\(name)", atomically: true, encoding: .utf8)
        }
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/grpc-health").path
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        client.arguments = ["-B", "\(fixtures)/client.py", "\(folder)/roots.pem", "\(folder)/chain.pem", "\(folder)/key.pem", lab.host, "\(server.port)", "payments.v1.Payments"]
        let output = Pipe()
        client.standardOutput = output
        let printed = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try client.run()
        try await Self.waitUntil { printed.withLock { $0 }.hasSuffix("watch: SERVICE_UNKNOWN\n") }
        health.setStatus(.serving, of: "payments.v1.Payments")
        try await Self.waitUntil { printed.withLock { $0 }.hasSuffix("watch: SERVING\n") }
        health.beginShutdown()
        try await Self.waitUntil { !client.isRunning }
        output.fileHandleForReading.readabilityHandler = nil
        printed.withLock { $0 += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        #expect(printed.withLock { $0 } == """
            check: SERVING
            check tsec.Unknown: NOT_FOUND
            watch: SERVICE_UNKNOWN
            watch: SERVING
            watch: NOT_SERVING
            watch ended: OK

            """)
        #expect(client.terminationStatus == 0)
        #expect(health.watcherCount == 0)
        await server.stop()
    }

    /// Watches `service` through `client`, telling `seen` each status, until the stream ends.
    static func watch(_ service: String, through client: GRPCClient<HTTP2ClientTransport.Posix>, seen: @escaping @Sendable (GRPCHealthCheck.ServingStatus) -> Void) async throws {
        var options = CallOptions.defaults
        options.waitForReady = false
        try await GRPCHealthCheck.watch(of: service, through: client, options: options) { statuses in
            for try await status in statuses { seen(status) }
        }
    }

    /// Waits, up to five seconds, until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
#endif

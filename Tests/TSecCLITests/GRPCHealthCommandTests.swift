#if GRPC
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder
import Synchronization
import TSecCLI
import TestServers
import Testing
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO

/// Counts the calls that reach a server's services.
final class CallCounter: ServerInterceptor {
    private let calls = Mutex(0)
    var count: Int { calls.withLock { $0 } }

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>,
        context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        calls.withLock { $0 += 1 }
        return try await next(request, context)
    }
}

@Suite("tsec grpc-health")
struct GRPCHealthCommandTests {
    let clients = try! ClientCertificateLab()
    var lab: TrustLab { clients.lab }
    /// The calls that reached the test's servers.
    let calls = CallCounter()

    /// A server requiring a client certificate from the client CA, presenting the loopback chain.
    func mutualTLSServer(_ service: GRPCHealthService) async throws -> GRPCTestServer {
        let chain = try lab.loopbackChain()
        let identity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: chain[0].privateKeyPEM)
        return try await GRPCTestServer(
            .verifyingClients(with: .clients(of: clients.clientCA, at: lab.pki.now), presenting: identity),
            services: [service],
            interceptors: [calls]
        )
    }

    /// The files of the lab's system roots and of alice's certificate and key.
    func writeFiles() throws -> (roots: String, certificate: String, key: String) {
        (
            try clients.replace("system.pem", with: Data(lab.systemRoots.pemBundle.utf8)),
            try clients.replace("alice.pem", with: Data(clients.alice.pemString.utf8)),
            try clients.replace("alice-key.pem", with: Data(clients.alice.privateKeyPEM.utf8))
        )
    }

    /// The arguments of `tsec grpc-health 127.0.0.1:PORT` trusting the lab's system roots at its
    /// time, plus `arguments`.
    func arguments(_ port: Int, _ arguments: [String]) throws -> [String] {
        ["grpc-health", "127.0.0.1:\(port)", "--system-roots", try writeFiles().roots, "--at", lab.pki.now.formatted(.iso8601)] + arguments
    }

    /// `tsec grpc-health 127.0.0.1:PORT` trusting the lab's system roots at its time, plus `arguments`.
    func check(_ port: Int, _ arguments: [String]) async throws -> (status: Int32, output: CommandOutput) {
        await tsec(try self.arguments(port, arguments))
    }

    /// The root's key pinned and alice's certificate presented.
    func pinnedAsAlice() throws -> [String] {
        let files = try writeFiles()
        return ["--pin-sha256", lab.root.der.spkiPin.description, "--client-cert", files.certificate, "--client-key", files.key]
    }

    @Test("over mutual TLS with the root's key pinned: SERVING exits 0, NOT_SERVING 6, a service the server does not know 5 (NOT_FOUND); --json has the status and the trust decision")
    func statuses() async throws {
        let service = GRPCHealthService(statuses: ["": .serving, "tsec.Draining": .notServing])
        let server = try await mutualTLSServer(service)
        let pinned = try pinnedAsAlice()

        let serving = try await check(server.port, pinned)
        #expect(serving.status == 0)
        #expect(serving.output.stdout == "SERVING\n")
        #expect(serving.output.stderr == "")

        let draining = try await check(server.port, pinned + ["--service", "tsec.Draining"])
        #expect(draining.status == 6)
        #expect(draining.output.stdout == "NOT_SERVING\n")

        let unknown = try await check(server.port, pinned + ["--service", "tsec.Unknown"])
        #expect(unknown.status == 5)
        #expect(unknown.output.stdout == "")
        #expect(unknown.output.stderr == "tsec grpc-health: the server does not know the service (NOT_FOUND): unknown service 'tsec.Unknown'\n")

        let json = try await check(server.port, pinned + ["--json"])
        #expect(json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.stdout.utf8)) as? [String: Any])
        #expect(document["status"] as? String == "SERVING")
        #expect(document["exitStatus"] as? Int == 0)
        #expect(document["service"] as? String == "")
        let decision = try #require(document["trustDecision"] as? [String: Any])
        #expect(decision["trusted"] as? Bool == true, "\(decision)")
        #expect(decision["decidedBy"] as? String == "PublicKeysTrustEvaluator", "\(decision)")
        #expect(calls.count == 4)
        await server.stop()
    }

    @Test("a wrong pin exits 1 naming the pins seen and expected, before the call reaches the service (-v tells the decision); no client certificate for a server requiring one, a closed port and a server that never answers (--max-time), exit 3; a server without the health service exits 5 (UNIMPLEMENTED)")
    func failures() async throws {
        let service = GRPCHealthService()
        let server = try await mutualTLSServer(service)
        let files = try writeFiles()
        let identity = ["--client-cert", files.certificate, "--client-key", files.key]

        let wrongPin = try await check(server.port, identity + ["--pin-sha256", lab.selfSigned.der.spkiPin.description])
        #expect(wrongPin.status == 1)
        #expect(wrongPin.output.stderr.hasPrefix("tsec grpc-health: the server 127.0.0.1 was rejected"), "\(wrongPin.output.stderr)")
        #expect(wrongPin.output.stderr.contains(lab.selfSigned.der.spkiPin.description), "the expected pin")
        #expect(wrongPin.output.stderr.contains(lab.root.der.spkiPin.description), "the pins seen")
        #expect(calls.count == 0)
        // -v tells how the chain was judged, which is otherwise left out.
        #expect(!wrongPin.output.stderr.contains("decidedBy="))
        let told = try await check(server.port, identity + ["--pin-sha256", lab.selfSigned.der.spkiPin.description, "-v"])
        #expect(told.output.stderr.contains("decidedBy=PublicKeysTrustEvaluator"), "\(told.output.stderr)")

        let anonymous = try await check(server.port, [])
        #expect(anonymous.status == 3)
        #expect(anonymous.output.stderr.hasPrefix("tsec grpc-health: cannot reach the server"), "\(anonymous.output.stderr)")
        #expect(calls.count == 0)
        await server.stop()

        let closed = try await check(server.port, identity)
        #expect(closed.status == 3)

        // A server that takes the connection and never answers: the time limit ends the check.
        let silent = try SilentListener()
        let started = ContinuousClock.now
        let unanswered = try await check(silent.port, identity + ["--max-time", "0.5"])
        #expect(unanswered.status == 3)
        #expect(unanswered.output.stderr.hasPrefix("tsec grpc-health: no answer in time"), "\(unanswered.output.stderr)")
        #expect(ContinuousClock.now - started < .seconds(5))
        silent.stop()

        let withoutHealth = try await GRPCTestServer(presenting: lab.loopbackChain(), services: [])
        let unimplemented = try await check(withoutHealth.port, [])
        #expect(unimplemented.status == 5)
        #expect(unimplemented.output.stderr.hasPrefix("tsec grpc-health: the server has no health service (UNIMPLEMENTED)"), "\(unimplemented.output.stderr)")
        await withoutHealth.stop()
    }

    /// Waits, up to ten seconds, until `output`'s stdout has `count` lines.
    func lines(_ count: Int, in output: CommandOutput) async throws -> [String] {
        for _ in 0..<200 where output.stdout.split(separator: "\n").count < count {
            try await Task.sleep(for: .milliseconds(50))
        }
        let lines = output.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count >= count, "stdout: \(output.stdout)\nstderr: \(output.stderr)")
        return lines
    }

    /// The status of each line of `stdout` after its ISO 8601 time
    /// (`2026-11-28T09:14:03Z  SERVING`); `nil` for a line that does not read so.
    func watchedStatuses(_ stdout: String) -> [String?] {
        stdout.split(separator: "\n").map { line in
            let parts = line.split(separator: "  ", maxSplits: 1).map(String.init)
            guard parts.count == 2, (try? Date(parts[0], strategy: .iso8601)) != nil else { return nil }
            return parts[1]
        }
    }

    @Test("--watch prints the status and each change with its time: --until-serving exits 0 at SERVING; a shutdown ends the watch, exit 6 (NOT_SERVING last); --max-time ends it by the last status heard; --json gives one object per line, the outcome last; Ctrl-C stops it; a server without Watch exits 5")
    func watch() async throws {
        let service = GRPCHealthService(statuses: ["": .serving, "payments.v1.Payments": .notServing])
        let server = try await mutualTLSServer(service)
        let pinned = try pinnedAsAlice()
        let arguments = try arguments(server.port, pinned)

        // Waiting for a service to become ready.
        let readiness = CommandOutput.capturing()
        let waiting = Task { await TSec.run(arguments: arguments + ["--service", "payments.v1.Payments", "--watch", "--until-serving", "--max-time", "20"], output: readiness) }
        _ = try await lines(1, in: readiness)
        service.setStatus(.serving, of: "payments.v1.Payments")
        #expect(await waiting.value == 0)
        #expect(watchedStatuses(readiness.stdout) == ["NOT_SERVING", "SERVING"], "\(readiness.stdout)")
        #expect(readiness.stderr == "")

        // Following the server until it shuts down.
        let following = CommandOutput.capturing()
        let watching = Task { await TSec.run(arguments: arguments + ["--watch"], output: following) }
        _ = try await lines(1, in: following)
        service.beginShutdown()
        #expect(await watching.value == 6)
        #expect(watchedStatuses(following.stdout) == ["SERVING", "NOT_SERVING"], "\(following.stdout)")
        service.resume()

        // A time limit: the last status heard decides (SERVICE_UNKNOWN, exit 6, for a service the server does not know).
        let bounded = try await check(server.port, pinned + ["--watch", "--max-time", "1.5"])
        #expect(bounded.status == 0, "\(bounded.output.stderr)")
        #expect(watchedStatuses(bounded.output.stdout) == ["SERVING"])
        let unknown = try await check(server.port, pinned + ["--watch", "--max-time", "1.5", "--service", "tsec.Unknown"])
        #expect(unknown.status == 6)
        #expect(watchedStatuses(unknown.output.stdout) == ["SERVICE_UNKNOWN"])

        let json = try await check(server.port, pinned + ["--watch", "--max-time", "1.5", "--json"])
        #expect(json.status == 0)
        let objects = try json.output.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        try #require(objects.count == 2, "\(json.output.stdout)")
        #expect(objects[0]["status"] as? String == "SERVING")
        #expect((objects[0]["at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)
        #expect(objects[1]["status"] as? String == "SERVING")
        #expect(objects[1]["exitStatus"] as? Int == 0)
        #expect((objects[1]["trustDecision"] as? [String: Any])?["trusted"] as? Bool == true)

        // Ctrl-C: the last status heard decides.
        let interrupted = CommandOutput.capturing()
        let untilInterrupted = Task { await TSec.run(arguments: arguments + ["--watch"], output: interrupted) }
        _ = try await lines(1, in: interrupted)
        kill(getpid(), SIGINT)
        #expect(await untilInterrupted.value == 0)
        // The call was cancelled, and the server told.
        for _ in 0..<100 where service.watcherCount > 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(service.watcherCount == 0)
        await server.stop()

        let withoutHealth = try await GRPCTestServer(presenting: lab.loopbackChain(), services: [])
        let unimplemented = try await check(withoutHealth.port, ["--watch"])
        #expect(unimplemented.status == 5)
        #expect(unimplemented.output.stderr.hasPrefix("tsec grpc-health: the server does not offer Watch (UNIMPLEMENTED)"), "\(unimplemented.output.stderr)")
        await withoutHealth.stop()
    }

    @Test("usage and input errors exit 2: not HOST:PORT, a time limit of 0, an address as --servername, --mode without a pin, a pin that is none, a client key that is not one, --until-serving without --watch")
    func usage() async throws {
        let files = try writeFiles()
        for arguments in [
            ["grpc-health", "example.com"],
            ["grpc-health", "example.com:443", "--max-time", "0"],
            ["grpc-health", "example.com:443", "--servername", "10.0.0.1"],
            ["grpc-health", "example.com:443", "--mode", "public-key"],
            ["grpc-health", "127.0.0.1:1", "--pin-sha256", "sha1/abc"],
            ["grpc-health", "127.0.0.1:1", "--client-cert", files.certificate, "--client-key", files.certificate],
            ["grpc-health", "127.0.0.1:1", "--until-serving"],
        ] {
            let result = await tsec(arguments)
            #expect(result.status == 2, "\(arguments): \(result.output.stderr)")
            #expect(!result.output.stderr.isEmpty, "\(arguments)")
        }
    }

    @Test("gRPC's C core serving the health service (python3-grpcio, messages by python3-protobuf) as the independent peer: SERVING, NOT_SERVING, NOT_FOUND; a watch until a starting service serves, one ended without a status (5), one never answered in time (3); --servername names the server an address is reached at")
    func coreServer() async throws {
        let lab = try TrustLab(pki: PKI(now: Date()))
        let chain = try clients.replace("chain.pem", with: Data(lab.chain(.legitimate).pemBundle.utf8))
        let key = try clients.replace("key.pem", with: Data(lab.chain(.legitimate)[0].privateKeyPEM.utf8))
        let roots = try clients.replace("core-roots.pem", with: Data(lab.systemRoots.pemBundle.utf8))
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/grpc-health").path
        let server = try ServerProcess("/usr/bin/python3") { port in ["-B", "\(fixtures)/server.py", chain, key, "\(port)"] }
        defer { server.stop() }
        let common = ["grpc-health", "127.0.0.1:\(server.port)", "--system-roots", roots, "--servername", lab.host, "--pin-sha256", lab.root.der.spkiPin.description]

        let serving = await tsec(common)
        #expect(serving.status == 0, "\(serving.output.stderr)")
        #expect(serving.output.stdout == "SERVING\n")
        let draining = await tsec(common + ["--service", "tsec.Draining"])
        #expect(draining.status == 6)
        #expect(draining.output.stdout == "NOT_SERVING\n")
        let unknown = await tsec(common + ["--service", "tsec.Unknown"])
        #expect(unknown.status == 5)
        #expect(unknown.output.stderr.contains("NOT_FOUND"))
        let starting = await tsec(common + ["--service", "tsec.Starting", "--watch", "--until-serving", "--max-time", "20"])
        #expect(starting.status == 0, "\(starting.output.stderr)")
        #expect(watchedStatuses(starting.output.stdout) == ["NOT_SERVING", "SERVING"], "\(starting.output.stdout)")
        // A watch the server ends without a status; one it never answers before the time limit.
        let ended = await tsec(common + ["--service", "tsec.Ended", "--watch"])
        #expect(ended.status == 5)
        #expect(ended.output.stderr == "tsec grpc-health: the server ended the watch without giving a status\n")
        let silent = await tsec(common + ["--service", "tsec.Silent", "--watch", "--max-time", "0.5"])
        #expect(silent.status == 3)
        #expect(silent.output.stderr.hasPrefix("tsec grpc-health: no answer in time"), "\(silent.output.stderr)")
        // Without --servername the address is the name the certificate must carry: it does not.
        let unnamed = await tsec(Array(common.prefix(4)))
        #expect(unnamed.status == 1)
        #expect(unnamed.output.stderr.contains("127.0.0.1"), "\(unnamed.output.stderr)")
    }
}
#endif

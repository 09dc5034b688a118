import Foundation
import Reachability
import SecureSession
import TestServers
import Testing

@Suite("Session and reachability")
struct ReachabilityRetryTests {
    @Test("reachability(of:) reads the route to the URL's host, or to its overridden address")
    func reachabilityOfURL() {
        let session = SecureSession()
        #expect(session.reachability(of: URL(string: "http://127.0.0.1:1/")!).interface?.kind == .loopback)
        #expect(session.reachability(of: URL(string: "https://name.that.does.not.resolve.invalid/")!) == .notReachable)
        var configuration = SecureSessionConfiguration()
        configuration.connections.addressOverrides = [AddressOverride(host: "name.that.does.not.resolve.invalid", port: 443, address: "127.0.0.1")]
        let overridden = SecureSession(configuration: configuration)
        #expect(overridden.reachability(of: URL(string: "https://name.that.does.not.resolve.invalid/")!).interface?.kind == .loopback)
    }

    @Test("a refused connection to a reachable host fails at once, even when the request would wait for connectivity")
    func reachableButRefused() async throws {
        let session = SecureSession()
        var request = SecureRequest(url: URL(string: "http://127.0.0.1:1/")!)
        request.waitsForConnectivity = .seconds(30)
        let started = ContinuousClock.now
        await #expect(throws: SecureSessionError.self) { try await session.send(request) }
        // Far below the 30 s it would wait; generous for a loaded machine (a parallel test run).
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// An address of the benchmarking range (198.18.0.0/15) that this test makes unreachable,
    /// then local, in the test machine's own namespace, and cleans up after.
    private static let address = "198.18.77.1"

    @Test("a request that waits for connectivity is sent once a route to its host appears; others fail at once",
          .enabled(if: getuid() == 0, "needs root to change routes"))
    func waitsForConnectivity() async throws {
        let server = try await HTTPTestServer(chain: nil, bindHost: "0.0.0.0")
        defer { Task { await server.stop() } }
        let cleanup = "ip route del unreachable \(Self.address)/32 2>/dev/null; ip addr del \(Self.address)/32 dev lo 2>/dev/null; true"
        _ = try shell(cleanup + "; ip route add unreachable \(Self.address)/32")
        defer { _ = try? shell(cleanup) }
        let session = SecureSession()
        let url = URL(string: "http://\(Self.address):\(server.port)/hello")!

        // Not opted in: the failure comes at once, and the session says why.
        await #expect(throws: SecureSessionError.self) { try await session.send(SecureRequest(url: url)) }
        #expect(session.reachability(of: url) == .notReachable)

        // Opted in, but no route comes within the time allowed.
        var impatient = SecureRequest(url: url)
        impatient.waitsForConnectivity = .milliseconds(300)
        var started = ContinuousClock.now
        await #expect(throws: SecureSessionError.self) { try await session.send(impatient) }
        #expect(ContinuousClock.now - started >= .milliseconds(300))

        // Opted in, and the address becomes local 300 ms later.
        var patient = SecureRequest(url: url)
        patient.waitsForConnectivity = .seconds(5)
        started = ContinuousClock.now
        let fix = Task {
            try await Task.sleep(for: .milliseconds(300))
            _ = try shell("ip route del unreachable \(Self.address)/32 && ip addr add \(Self.address)/32 dev lo")
        }
        let response = try await session.send(patient)
        try await fix.value
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello")
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(session.reachability(of: url).interface?.kind == .loopback)
        await session.shutdown()
    }
}

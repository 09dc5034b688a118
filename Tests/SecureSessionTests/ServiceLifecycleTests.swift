import Foundation
import Logging
import PKIBuilder
import SecureSession
import ServiceLifecycle
import TestServers
import Testing
import TransportSecurity

/// The session and the pin updater as swift-service-lifecycle services: run by a `ServiceGroup`,
/// ended by its graceful shutdown.
@Suite("Services: the session and the pin updater in a ServiceGroup")
struct ServiceLifecycleTests {
    let lab = try! TrustLab()
    let logger = Logger(label: "service-lifecycle-tests", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a session serves while its group runs; graceful shutdown ends its run and later requests fail as after shutdown()")
    func sessionEndsWithItsGroup() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        let group = ServiceGroup(services: [session], gracefulShutdownSignals: [], logger: logger)
        let running = Task { try await group.run() }

        #expect(try await session.get(server.url("/hello")).text == "hello")
        await group.triggerGracefulShutdown()
        try await running.value
        let error = await #expect(throws: SecureSessionError.self) { try await session.get(server.url("/hello")) }
        #expect(error?.code == .sessionShutDown)
    }

    @Test("a cancelled group ends the session's run too")
    func sessionEndsWhenCancelled() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = lab.session(SecurityPolicy.default)
        let running = Task { try await session.run() }
        #expect(try await session.get(server.url("/hello")).statusCode == 200)
        running.cancel()
        try await running.value
        let error = await #expect(throws: SecureSessionError.self) { try await session.get(server.url("/hello")) }
        #expect(error?.code == .sessionShutDown)
    }

    @Test("an updater in a group fetches a signed update while the group runs and stops with it, a fetch in progress cancelled")
    func updaterRunsWithItsGroup() async throws {
        let signer = PinUpdateSigningKey(generating: .p256)
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let host = "pinned.example.test"
        let now = lab.pki.now
        let bytes = Array("""
            {"version":1,"issuedAt":"\(now.addingTimeInterval(-60).formatted(.iso8601))","expiresAt":"\(now.addingTimeInterval(86_400).formatted(.iso8601))","domains":{"\(host)":{"pins":["\(SPKIPin(subjectPublicKeyInfoDER: [1]))","\(SPKIPin(subjectPublicKeyInfoDER: [2]))"]}}}
            """.utf8)
        server.files["pins.json.sig"] = PinUpdateSignature.encode(try signer.sign(bytes))
        server.files["pins.json"] = String(decoding: bytes, as: UTF8.self)
        let registry = PinSetRegistry(publicKey: try signer.publicKey, clock: { [lab] in lab.pki.now })
        let fetcher = lab.session(SecurityPolicy.default)
        var schedule = PinSetUpdater.Schedule()
        schedule.interval = .seconds(3_600)   // after the first fetch, it only waits
        let updater = PinSetUpdater(registry: registry, session: fetcher, documentURL: server.url("/files/pins.json"), schedule: schedule)
        // The session before the updater: a group shuts its services down in reverse order, the
        // updater first.
        let group = ServiceGroup(services: [fetcher, updater], gracefulShutdownSignals: [], logger: logger)
        let clock = ContinuousClock()
        let running = Task { try await group.run() }

        for _ in 0..<500 where registry.version < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(registry.version == 1)
        let asked = clock.now
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(clock.now - asked < .seconds(5), "the hour-long wait was not cut short")
        let error = await #expect(throws: SecureSessionError.self) { try await fetcher.get(server.url("/hello")) }
        #expect(error?.code == .sessionShutDown)
    }
}

import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Signed pin updates through the session")
struct PinUpdateSessionTests {
    let lab = try! TrustLab()
    let signer = PinUpdateSigningKey(generating: .p256)
    static let host = "pinned.example.test"

    /// A chain for the pinned host with a fresh key, issued by the lab's intermediate.
    func chain() throws -> [IssuedCertificate] {
        [try lab.pki.issue(.server(Self.host), by: lab.intermediate), lab.intermediate]
    }

    func document(version: Int, pins: [SPKIPin]) -> [UInt8] {
        let now = lab.pki.now
        let pinList = pins.map { "\"\($0)\"" }.joined(separator: ",")
        return Array("""
            {"version":\(version),"issuedAt":"\(now.addingTimeInterval(-60).formatted(.iso8601))","expiresAt":"\(now.addingTimeInterval(30 * 86_400).formatted(.iso8601))","domains":{"\(Self.host)":{"pins":[\(pinList)]}}}
            """.utf8)
    }

    func offer(_ registry: PinSetRegistry, version: Int, pins: [SPKIPin]) throws {
        let bytes = document(version: version, pins: pins)
        try registry.offer(document: bytes, signatureText: PinUpdateSignature.encode(try signer.sign(bytes)))
    }

    func session(port: Int, registry: PinSetRegistry?) -> SecureSession {
        lab.session { configuration in
            configuration.connections.addressOverrides = [AddressOverride(host: Self.host, port: port, address: "127.0.0.1")]
            configuration.tls.pinSetRegistry = registry
        }
    }

    @Test("the updater fetches, verifies and installs a document; the same version again is up to date; refusals keep the sets")
    func updater() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let registry = PinSetRegistry(publicKey: try signer.publicKey, clock: { [lab] in lab.pki.now })
        let fetcher = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store"),
                evaluationTime: lab.pki.now,
                decisionCache: nil
            )
        ))
        let updater = PinSetUpdater(registry: registry, session: fetcher, documentURL: server.url("/files/pins.json"))
        #expect(updater.signatureURL == server.url("/files/pins.json.sig"))

        // Nothing published yet: the fetch fails and nothing changes.
        await #expect(throws: SecureSessionError.self) { try await updater.updateNow() }
        #expect(registry.source == .builtIn)

        let pins = [SPKIPin(subjectPublicKeyInfoDER: [1]), SPKIPin(subjectPublicKeyInfoDER: [2])]
        let two = document(version: 2, pins: pins)
        server.files["pins.json"] = String(decoding: two, as: UTF8.self)
        server.files["pins.json.sig"] = PinUpdateSignature.encode(try signer.sign(two))
        #expect(try await updater.updateNow() == .accepted(version: 2))
        #expect(try await updater.updateNow() == .upToDate(version: 2))
        #expect(registry.pinSet(forHost: Self.host)?.pins == pins)

        let one = document(version: 1, pins: [pins[1], pins[0]])
        server.files["pins.json"] = String(decoding: one, as: UTF8.self)
        server.files["pins.json.sig"] = PinUpdateSignature.encode(try signer.sign(one))
        await #expect(throws: PinUpdateError(.notNewer(offered: 1, current: 2))) { try await updater.updateNow() }
        let three = document(version: 3, pins: [pins[1], pins[0]])
        server.files["pins.json"] = String(decoding: three, as: UTF8.self)  // signature still for version 1
        await #expect(throws: PinUpdateError(.badSignature)) { try await updater.updateNow() }
        #expect(registry.version == 2)

        // A document or signature beyond its bound is not held in memory, whatever the server sends.
        func expectRefusedBeyond(_ bound: Int) async {
            await #expect {
                try await updater.updateNow()
            } throws: { error in
                guard case .responseTooLarge(let limit)? = error.sessionFailureReason else { return false }
                return limit == bound
            }
        }
        server.files["pins.json"] = String(repeating: " ", count: PinSetUpdater.maximumDocumentSize + 1)
        await expectRefusedBeyond(PinSetUpdater.maximumDocumentSize)
        server.files["pins.json"] = String(decoding: three, as: UTF8.self)
        server.files["pins.json.sig"] = String(repeating: "A", count: PinSetUpdater.maximumSignatureSize + 1)
        await expectRefusedBeyond(PinSetUpdater.maximumSignatureSize)
        #expect(registry.version == 2)
        await fetcher.shutdown()
    }

    @Test("started, the updater fetches at once, again on its schedule, and retries after failures")
    func periodic() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let registry = PinSetRegistry(publicKey: try signer.publicKey, clock: { [lab] in lab.pki.now })
        let fetcher = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store"),
                evaluationTime: lab.pki.now,
                decisionCache: nil
            )
        ))
        var schedule = PinSetUpdater.Schedule()
        schedule.interval = .milliseconds(50)
        schedule.initialBackoff = .milliseconds(20)
        let updater = PinSetUpdater(registry: registry, session: fetcher, documentURL: server.url("/files/pins.json"), schedule: schedule)
        let task = updater.start()  // nothing published: failures, retried
        try await Task.sleep(for: .milliseconds(100))
        for version in 1...2 {
            let bytes = document(version: version, pins: [SPKIPin(subjectPublicKeyInfoDER: [UInt8(version)]), SPKIPin(subjectPublicKeyInfoDER: [0xBA])])
            server.files["pins.json.sig"] = PinUpdateSignature.encode(try signer.sign(bytes))
            server.files["pins.json"] = String(decoding: bytes, as: UTF8.self)
            for _ in 0..<300 where registry.version < version { try await Task.sleep(for: .milliseconds(10)) }
            #expect(registry.version == version)
        }
        task.cancel()
        await task.value
        await fetcher.shutdown()
    }

    @Test("the schedule: the interval with jitter after success, doubling backoff after failures, capped")
    func schedule() {
        var schedule = PinSetUpdater.Schedule()
        schedule.interval = .seconds(3_600)
        schedule.initialBackoff = .seconds(60)
        schedule.maximumBackoff = .seconds(600)
        schedule.jitter = 0.1
        #expect(schedule.delay(afterFailures: 0, random: 0) == .seconds(3_600))
        #expect(schedule.delay(afterFailures: 0, random: 1) == .seconds(3_960))
        #expect(schedule.delay(afterFailures: 0, random: -1) == .seconds(3_240))
        #expect(schedule.delay(afterFailures: 1, random: 0) == .seconds(60))
        #expect(schedule.delay(afterFailures: 2, random: 0) == .seconds(120))
        #expect(schedule.delay(afterFailures: 3, random: 0) == .seconds(240))
        #expect(schedule.delay(afterFailures: 50, random: 0) == .seconds(600))
        #expect(schedule.delay(afterFailures: 50, random: 7) == .seconds(660), "random is clamped to -1...1")
        #expect(schedule.delay(afterFailures: 1, random: .nan) == .seconds(60), "NaN counts as no jitter")
        schedule.jitter = 5
        #expect(schedule.delay(afterFailures: 1, random: -1) == .zero, "jitter is clamped to 0...1")
        schedule.jitter = .nan
        #expect(schedule.delay(afterFailures: 1, random: 1) == .seconds(60))
        schedule.jitter = 0.1
        schedule.interval = .seconds(Int64.max)
        #expect(schedule.delay(afterFailures: 0, random: 1) == .milliseconds(Int64.max / 1_000_000), "at most 292 years, never a crash")
        schedule.interval = .seconds(-5)
        #expect(schedule.delay(afterFailures: 0, random: 0) == .zero)
    }

    @Test("a pin update rotating to the backup key while the server rotates its certificate loses no request; old pins then fail")
    func rotation() async throws {
        let chainA = try chain()
        let chainB = try chain()
        let keyC = SPKIPin(subjectPublicKeyInfoDER: Array("the next backup key".utf8))
        let server = try await HTTPTestServer(chain: chainA)
        defer { Task { await server.stop() } }
        let registry = PinSetRegistry(publicKey: try signer.publicKey, clock: { [lab] in lab.pki.now })
        try offer(registry, version: 1, pins: [chainA[0].der.spkiPin, chainB[0].der.spkiPin])
        let url = URL(string: "https://\(Self.host):\(server.port)/hello")!

        var failures: [String] = []
        for request in 0..<40 {
            if request == 10 { try server.rotate(to: chainB) }  // the server moves to its backup key
            if request == 20 { try offer(registry, version: 2, pins: [chainB[0].der.spkiPin, keyC]) }  // pins follow, with a new backup
            // A new session each time: every request makes its own TLS handshake.
            let session = session(port: server.port, registry: registry)
            do {
                _ = try await session.get(url)
            } catch {
                failures.append("request \(request): \(error)")
            }
            await session.shutdown()
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(server.connections.total >= 40)

        // The retired key is no longer accepted.
        try server.rotate(to: chainA)
        let session = session(port: server.port, registry: registry)
        do {
            _ = try await session.get(url)
            Issue.record("a key removed by the update was accepted")
        } catch let sessionError as SecureSessionError where sessionError.code == .trustRejected {
            if case .trustRejected(let decision) = sessionError.reason {
                #expect(decision.decider == PinSetEvaluator.decider)
                #expect(decision.reason.contains("signed document v2"))
                #expect(decision.pinMismatch?.expected.map(\.pin) == [chainB[0].der.spkiPin, keyC])
            }
        }
        await session.shutdown()
    }
}

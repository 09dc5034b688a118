import Crypto
import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import X509

/// Signed pin-update documents built at test time around the lab's fixed clock.
struct PinUpdateFixture {
    let lab = LabFixture.shared.lab
    let key = PinUpdateSigningKey(generating: .ed25519)
    var now: Date { lab.pki.now }
    let pinA = SPKIPin(subjectPublicKeyInfoDER: Array("key A".utf8))
    let pinB = SPKIPin(subjectPublicKeyInfoDER: Array("key B".utf8))
    /// A backup pin: every domain of a document, and of a built-in set, needs two pins.
    let backup = SPKIPin(subjectPublicKeyInfoDER: Array("backup key kept offline".utf8))

    /// A document's JSON.
    func json(
        version: Int,
        pins: [SPKIPin]? = nil,
        domain: String = "example.com",
        includeSubdomains: Bool = true,
        issuedAt: Date? = nil,
        expiresAt: Date? = nil,
        certificates: [String] = []
    ) -> [UInt8] {
        let issued = (issuedAt ?? now.addingTimeInterval(-86_400)).formatted(.iso8601)
        let expires = (expiresAt ?? now.addingTimeInterval(90 * 86_400)).formatted(.iso8601)
        let pinList = (pins ?? [pinA, pinB]).map { "\"\($0)\"" }.joined(separator: ", ")
        let certificateList = certificates.map { "\"\($0.replacingOccurrences(of: "\n", with: "\\n"))\"" }.joined(separator: ", ")
        return Array("""
            {"version": \(version), "issuedAt": "\(issued)", "expiresAt": "\(expires)",
             "domains": {"\(domain)": {"includeSubdomains": \(includeSubdomains), "pins": [\(pinList)], "certificates": [\(certificateList)]}}}
            """.utf8)
    }

    /// The signature file's text for `document`.
    func signature(_ document: [UInt8], by signer: PinUpdateSigningKey? = nil) throws -> String {
        PinUpdateSignature.encode(try (signer ?? key).sign(document))
    }

    func registry(store: PinUpdateStore? = nil, builtIn: [DomainPinSet] = [], at time: Date? = nil) throws -> PinSetRegistry {
        let moment = time ?? now
        return PinSetRegistry(publicKey: try key.publicKey, builtIn: builtIn, store: store, clock: { moment })
    }
}

@Suite("Signed pin-update documents")
struct PinUpdateDocumentTests {
    let fixture = PinUpdateFixture()

    @Test("a document's fields: version, times, pins and certificate keys per domain, expiring with it")
    func parses() throws {
        let certificatePEM = fixture.lab.leaf.pemString
        let document = try PinUpdateDocument(bytes: fixture.json(version: 7, certificates: [certificatePEM]))
        #expect(document.version == 7)
        #expect(document.expiresAt > document.issuedAt)
        let set = try #require(document.pinSets.first)
        #expect(set.key == DomainKey("example.com"))
        #expect(set.includesSubdomains)
        #expect(set.pins == [fixture.pinA, fixture.pinB, fixture.lab.leaf.der.spkiPin])
        #expect(set.expirationDate == document.expiresAt)
        #expect(document.pinSet(forHost: "api.example.com")?.key == DomainKey("example.com"))
        #expect(document.pinSet(forHost: "example.org") == nil)
    }

    @Test("every malformed field is refused with its name")
    func malformed() {
        let cases: [(String, String)] = [
            ("not json", "not JSON (invalid value around character 1)"),
            ("{\"version\": 1,", "not JSON (unexpected end of file during JSON parse)"),
            (#"{"issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "version: missing"),
            (#"{"version": "7", "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "version: expected an integer"),
            (#"{"version": 7.5, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "version"),
            (#"{"version": 0, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "not a positive integer"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00+01:00", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "issuedAt"),
            (#"{"version": 1, "issuedAt": "yesterday", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "issuedAt"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-30T00:00:00Z", "domains": {}}"#, "expiresAt: \"2030-02-30T00:00:00Z\" is not an ISO 8601"),
            (#"{"version": 1, "issuedAt": "2029-12-31T24:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {}}"#, "issuedAt: \"2029-12-31T24:00:00Z\""),
            (#"{"version": 1, "issuedAt": "2030-02-01T00:00:00Z", "expiresAt": "2029-12-31T00:00:00Z", "domains": {}}"#, "not after issuedAt"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z"}"#, "domains: missing"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"*.example.com": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#, "'*.example.com' has a wildcard"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {".example.com": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#, "'.example.com' has an empty label"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"10.0.0.0/8": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#, "'10.0.0.0/8' is an address or a range, not a host name"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"pins": ["md5/abc"]}}}"#, "domains.a.example.pins[0]"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"pins": [1]}}}"#, "expected a string"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"pins": []}}}"#, "no pins and no certificates"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"certificates": ["garbage"]}}}"#, "domains.a.example.certificates[0]"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"api.example.com": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA="]}, "API.Example.com.": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "sha256/BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA="]}}}"#, "domains: 'api.example.com' and 'API.Example.com.' name the same domain api.example.com"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"includeSubdomains": 1, "pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#, "includeSubdomains"),
            // A backup pin is required: one pin, or the same pin twice, is refused.
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#, "domains.a.example: 1 distinct pin; every domain needs at least 2 (a backup pin"),
            (#"{"version": 1, "issuedAt": "2029-12-31T00:00:00Z", "expiresAt": "2030-02-01T00:00:00Z", "domains": {"a.example": {"pins": ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}}}"#, "domains.a.example: 1 distinct pin"),
        ]
        for (text, expected) in cases {
            #expect {
                try PinUpdateDocument(bytes: Array(text.utf8))
            } throws: { error in
                guard let error = error as? PinUpdateError, case .malformedDocument(let detail) = error.reason else { return false }
                return detail.contains(expected) || error.description.contains(expected)
            }
        }
    }

    @Test("ISO 8601 times with a field out of range are refused, not rolled over into the next field")
    func strictTimes() {
        #expect(Date(iso8601: "2028-02-29T23:59:59Z") != nil)
        #expect(Date(iso8601: "2030-01-01T09:00:00+09:00") == Date(iso8601: "2030-01-01T00:00:00Z"))
        #expect(Date(iso8601: "2030-01-01T00:00:00.5Z") != nil)
        #expect(Date(iso8601: "2030-01-31", dateOnly: true) == Date(iso8601: "2030-01-31T00:00:00Z"))
        for invalid in ["2030-02-30T00:00:00Z", "2029-02-29T00:00:00Z", "2030-04-31T00:00:00Z", "2030-13-01T00:00:00Z", "2030-00-10T00:00:00Z",
                        "2030-01-00T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01T23:60:00Z", "2030-01-01T23:59:60Z", "2030-01-01", "30-01-01T00:00:00Z"] {
            #expect(Date(iso8601: invalid) == nil, "\(invalid)")
        }
        #expect(Date(iso8601: "2030-02-30", dateOnly: true) == nil)
        #expect(Date(iso8601: "2030-01-31T00:00:00Z", dateOnly: true) == nil)
    }
}

@Suite("Pin-update keys and signatures")
struct PinUpdateKeyTests {
    let fixture = PinUpdateFixture()

    @Test("Ed25519 and P-256: sign, verify, and refuse another key, a changed byte or a non-base64 signature", arguments: PinUpdateKeyAlgorithm.allCases)
    func roundTrip(algorithm: PinUpdateKeyAlgorithm) throws {
        let key = PinUpdateSigningKey(generating: algorithm)
        let reread = try PinUpdateSigningKey(pemEncoded: try key.pemEncoded)
        #expect(reread.algorithm == algorithm)
        let publicKey = try PinUpdatePublicKey(pemEncoded: try key.publicKey.pemEncoded)
        let document = fixture.json(version: 1)
        let signature = try fixture.signature(document, by: reread)
        try publicKey.verify(signatureText: signature, for: document)

        var changed = document
        changed[changed.count / 2] ^= 0x01
        #expect(throws: PinUpdateError(.badSignature)) { try publicKey.verify(signatureText: signature, for: changed) }
        let other = try PinUpdateSigningKey(generating: algorithm).publicKey
        #expect(throws: PinUpdateError(.badSignature)) { try other.verify(signatureText: signature, for: document) }
        #expect(throws: PinUpdateError(.malformedSignature("not base64"))) { try publicKey.verify(signatureText: "not base64!", for: document) }
        #expect(throws: PinUpdateError(.malformedSignature("it is empty"))) { try publicKey.verify(signatureText: "\n", for: document) }
    }

    @Test("keys other than Ed25519 and P-256, and garbage, are refused")
    func otherKeys() throws {
        let p384 = Certificate.PublicKey(P384.Signing.PrivateKey().publicKey)
        #expect(throws: PinUpdateError.self) { try PinUpdatePublicKey(p384) }
        #expect(throws: PinUpdateError.self) { try PinUpdatePublicKey(pemEncoded: "garbage", source: "k.pub") }
        #expect(throws: PinUpdateError.self) { try PinUpdateSigningKey(pemEncoded: try fixture.key.publicKey.pemEncoded) }
    }

    @Test("signatures made by openssl verify (an independent signer)", arguments: ["ed25519", "p256"])
    func openssl(kind: String) throws {
        let directory = try TemporaryDirectory()
        let document = directory.path + "/doc.json"
        try Data(fixture.json(version: 3)).write(to: URL(fileURLWithPath: document))
        let sign = kind == "ed25519"
            ? "openssl genpkey -algorithm ed25519 -out k.pem && openssl pkeyutl -sign -inkey k.pem -rawin -in doc.json"
            : "openssl ecparam -name prime256v1 -genkey -noout -out k.pem && openssl dgst -sha256 -sign k.pem doc.json"
        let signature = try shell("cd \(directory.path) && \(sign) | base64 -w0 && openssl pkey -in k.pem -pubout -out k.pub 2>/dev/null")
        let publicKey = try PinUpdatePublicKey(pemEncoded: String(contentsOfFile: directory.path + "/k.pub", encoding: .utf8))
        try publicKey.verify(signatureText: signature, for: Array(try Data(contentsOf: URL(fileURLWithPath: document))))
    }
}

@Suite("The pin-set registry: accepting, storing and loading updates")
struct PinSetRegistryTests {
    let fixture = PinUpdateFixture()

    private var builtIn: [DomainPinSet] {
        var set = DomainPinSet(key: DomainKey("example.com")!, pins: [fixture.pinA, fixture.backup])
        set.includesSubdomains = true
        return [set]
    }

    @Test("built-in sets apply until a newer signed document is offered; then it applies, and is stored")
    func acceptance() throws {
        let directory = try TemporaryDirectory()
        let store = PinUpdateStore(path: directory.path + "/pins.signed")
        let registry = try fixture.registry(store: store, builtIn: builtIn)
        #expect(registry.source == .builtIn)
        #expect(registry.pinSet(forHost: "api.example.com")?.pins == [fixture.pinA, fixture.backup])

        let document = fixture.json(version: 7, pins: [fixture.pinB, fixture.backup])
        try registry.offer(document: document, signatureText: fixture.signature(document))
        #expect(registry.source == .signedDocument(version: 7))
        #expect(registry.pinSet(forHost: "api.example.com")?.pins == [fixture.pinB, fixture.backup])
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["pins.signed"], "no temporary file left")

        // A new process: the stored document is verified again and put in force.
        let restarted = try fixture.registry(store: store, builtIn: builtIn)
        #expect(try restarted.loadStored() == 7)
        #expect(restarted.pinSet(forHost: "api.example.com")?.pins == [fixture.pinB, fixture.backup])
    }

    @Test("refused: the same or an older version (rollback), a bad signature, an expired or future-dated document; the sets in force stay")
    func refusals() throws {
        let registry = try fixture.registry(builtIn: builtIn)
        let seven = fixture.json(version: 7, pins: [fixture.pinB, fixture.backup])
        try registry.offer(document: seven, signatureText: fixture.signature(seven))

        let same = fixture.json(version: 7, pins: [fixture.pinA, fixture.backup])
        #expect(throws: PinUpdateError(.notNewer(offered: 7, current: 7))) { try registry.offer(document: same, signatureText: fixture.signature(same)) }
        let older = fixture.json(version: 6, pins: [fixture.pinA, fixture.backup])
        #expect(throws: PinUpdateError(.notNewer(offered: 6, current: 7))) { try registry.offer(document: older, signatureText: fixture.signature(older)) }

        let forged = fixture.json(version: 8, pins: [fixture.pinA, fixture.backup])
        let intruder = PinUpdateSigningKey(generating: .ed25519)
        #expect(throws: PinUpdateError(.badSignature)) { try registry.offer(document: forged, signatureText: fixture.signature(forged, by: intruder)) }

        let expired = fixture.json(version: 9, issuedAt: fixture.now.addingTimeInterval(-10 * 86_400), expiresAt: fixture.now.addingTimeInterval(-1))
        #expect(throws: PinUpdateError.self) { try registry.offer(document: expired, signatureText: fixture.signature(expired)) }
        let future = fixture.json(version: 10, issuedAt: fixture.now.addingTimeInterval(3_600))
        #expect(throws: PinUpdateError.self) { try registry.offer(document: future, signatureText: fixture.signature(future)) }

        #expect(registry.version == 7)
        #expect(registry.pinSet(forHost: "example.com")?.pins == [fixture.pinB, fixture.backup])
    }

    @Test("no rollback through a shared store: an offer is weighed against the stored document too (another process's, or one never loaded), which then applies")
    func rollbackThroughTheStore() throws {
        let directory = try TemporaryDirectory()
        let store = PinUpdateStore(path: directory.path + "/pins.signed")
        let first = try fixture.registry(store: store, builtIn: builtIn)
        // Started before the update and never loaded the store.
        let second = try fixture.registry(store: store, builtIn: builtIn)
        let nine = fixture.json(version: 9, pins: [fixture.pinB, fixture.backup])
        try first.offer(document: nine, signatureText: fixture.signature(nine))

        // An older document, genuinely signed and not expired (a replay), must not replace it.
        let eight = fixture.json(version: 8, pins: [fixture.pinA, fixture.backup])
        #expect(throws: PinUpdateError(.notNewer(offered: 8, current: 9))) { try second.offer(document: eight, signatureText: fixture.signature(eight)) }
        #expect(second.source == .signedDocument(version: 9), "the stored document, verified, is in force")
        #expect(second.pinSet(forHost: "example.com")?.pins == [fixture.pinB, fixture.backup])
        #expect(try fixture.registry(store: store, builtIn: builtIn).loadStored() == 9, "the store still holds version 9")

        // Repaired or removed, the store lets a newer document through again.
        try FileManager.default.removeItem(atPath: store.path)
        let ten = fixture.json(version: 10, pins: [fixture.pinA, fixture.backup])
        try second.offer(document: ten, signatureText: fixture.signature(ten))
        #expect(try fixture.registry(store: store, builtIn: builtIn).loadStored() == 10)
    }

    @Test("the version floor survives a restart: while the store cannot be read (corrupt, truncated, re-signed, unreadable), every update is refused, saying so, instead of starting again from version 0")
    func unreadableStoreRefusesUpdates() throws {
        let directory = try TemporaryDirectory()
        let store = PinUpdateStore(path: directory.path + "/pins.signed")
        let nine = fixture.json(version: 9, pins: [fixture.pinB, fixture.backup])
        try fixture.registry(store: store, builtIn: builtIn).offer(document: nine, signatureText: fixture.signature(nine))
        let good = try Data(contentsOf: URL(fileURLWithPath: store.path))
        // An old document, genuinely signed and not expired: what an attacker would replay.
        let one = fixture.json(version: 1, pins: [fixture.pinA, fixture.backup])
        let intruder = PinUpdateSigningKey(generating: .ed25519)
        let damages: [(String, () throws -> Void)] = [
            ("garbage", { try Data("garbage".utf8).write(to: URL(fileURLWithPath: store.path)) }),
            ("truncated", { try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: store.path)) }),
            ("re-signed by another key", { try store.write(document: nine, signature: try intruder.sign(nine)) }),
            ("a folder in its place", {
                try FileManager.default.removeItem(atPath: store.path)
                try FileManager.default.createDirectory(atPath: store.path, withIntermediateDirectories: false)
            }),
        ]
        for (name, damage) in damages {
            try damage()
            // A new process: nothing loaded, and the floor unknown.
            let restarted = try fixture.registry(store: store, builtIn: builtIn)
            #expect(throws: PinUpdateError.self, "\(name)") { try restarted.loadStored() }
            #expect {
                try restarted.offer(document: one, signatureText: fixture.signature(one))
            } throws: { error in
                guard let error = error as? PinUpdateError, case .corruptStore(let detail) = error.reason else { return false }
                return error.source == store.path && detail.contains("updates are refused until the file is repaired or removed")
            }
            #expect(restarted.source == .builtIn, "\(name): the built-in sets stay in force")
            try? FileManager.default.removeItem(atPath: store.path)
            try good.write(to: URL(fileURLWithPath: store.path))
        }
        // Intact, the store's version is the floor after a restart, even once it has expired.
        let later = fixture.now.addingTimeInterval(200 * 86_400)
        let restarted = try fixture.registry(store: store, builtIn: builtIn, at: later)
        let replay = fixture.json(version: 1, pins: [fixture.pinA, fixture.backup], expiresAt: later.addingTimeInterval(86_400))
        #expect(throws: PinUpdateError(.notNewer(offered: 1, current: 9))) { try restarted.offer(document: replay, signatureText: fixture.signature(replay)) }
    }

    @Test("a stored document accepted before a backup pin was required (one pin for a domain) is no longer applied, but its version is still the floor: a newer document is accepted, an older one refused")
    func storedSinglePinDocumentKeepsTheFloor() throws {
        let directory = try TemporaryDirectory()
        let store = PinUpdateStore(path: directory.path + "/pins.signed")
        let old = fixture.json(version: 5, pins: [fixture.pinA])
        try store.write(document: old, signature: try fixture.key.sign(old))
        let registry = try fixture.registry(store: store, builtIn: builtIn)
        #expect(throws: PinUpdateError.self) { try registry.loadStored() }
        let four = fixture.json(version: 4, pins: [fixture.pinB, fixture.backup])
        #expect(throws: PinUpdateError(.notNewer(offered: 4, current: 5))) { try registry.offer(document: four, signatureText: fixture.signature(four)) }
        let six = fixture.json(version: 6, pins: [fixture.pinB, fixture.backup])
        try registry.offer(document: six, signatureText: fixture.signature(six))
        #expect(registry.source == .signedDocument(version: 6))
    }

    @Test("a built-in set with fewer than two distinct pins blocks the hosts it covers (fail closed), whatever the chain")
    func builtInSetNeedsABackupPin() async throws {
        let lab = fixture.lab
        for pins in [[lab.leaf.der.spkiPin], [lab.leaf.der.spkiPin, lab.leaf.der.spkiPin]] {
            let registry = PinSetRegistry(publicKey: try fixture.key.publicKey, builtIn: [DomainPinSet(key: DomainKey(lab.host)!, pins: pins)])
            let set = try #require(registry.pinSet(forHost: lab.host))
            let trust = LabFixture.shared.trust(.legitimate)
            let decision = await PinSetEvaluator(SecurityPolicy.default, pinSet: set, origin: "built-in").evaluate(trust, forHost: lab.host)
            #expect(!decision.isTrusted)
            #expect(decision.reason.contains("holds 1 distinct pin; a pin set needs at least 2 (a backup pin)"), "\(decision.reason)")
        }
        let backedUp = DomainPinSet(key: DomainKey(lab.host)!, pins: [lab.leaf.der.spkiPin, fixture.backup])
        #expect(await PinSetEvaluator(SecurityPolicy.default, pinSet: backedUp, origin: "built-in").evaluate(LabFixture.shared.trust(.legitimate), forHost: lab.host).isTrusted)
    }

    @Test("an accepted document stops applying when it expires: the built-in sets apply again")
    func expiry() throws {
        let document = fixture.json(version: 2, pins: [fixture.pinB, fixture.backup], expiresAt: fixture.now.addingTimeInterval(3_600))
        let clock = ManualClock(fixture.now)
        let registry = PinSetRegistry(publicKey: try fixture.key.publicKey, builtIn: builtIn, clock: { clock.now })
        try registry.offer(document: document, signatureText: fixture.signature(document))
        #expect(registry.source == .signedDocument(version: 2))
        clock.now = fixture.now.addingTimeInterval(3_601)
        #expect(registry.source == .builtIn)
        #expect(registry.pinSet(forHost: "example.com")?.pins == [fixture.pinA, fixture.backup])
    }

    @Test("a corrupt, truncated, empty or re-signed stored file is refused on load: the built-in sets stay in force")
    func corruptStore() throws {
        let directory = try TemporaryDirectory()
        let store = PinUpdateStore(path: directory.path + "/pins.signed")
        let document = fixture.json(version: 4, pins: [fixture.pinB, fixture.backup])
        try store.write(document: document, signature: try fixture.key.sign(document))
        let good = try Data(contentsOf: URL(fileURLWithPath: store.path))

        var tampered = document
        tampered[tampered.count - 10] ^= 0x20
        let damaged: [(String, Data)] = [
            ("truncated", good.prefix(good.count / 2)),
            ("empty", Data()),
            ("garbage", Data("hello".utf8)),
            ("tampered", Self.envelope(tampered, signature: try fixture.key.sign(document))),
        ]
        for (name, bytes) in damaged {
            try bytes.write(to: URL(fileURLWithPath: store.path))
            let registry = try fixture.registry(store: store, builtIn: builtIn)
            #expect(throws: PinUpdateError.self, "\(name)") { try registry.loadStored() }
            #expect(registry.source == .builtIn, "\(name)")
            #expect(registry.pinSet(forHost: "example.com")?.pins == [fixture.pinA, fixture.backup], "\(name)")
        }
        try good.write(to: URL(fileURLWithPath: store.path))
        #expect(try fixture.registry(store: store, builtIn: builtIn).loadStored() == 4)
    }

    /// A stored file with `document` and `signature`, as the store writes it.
    private static func envelope(_ document: [UInt8], signature: [UInt8]) -> Data {
        Data(#"{"format":1,"document":"\#(Data(document).base64EncodedString())","signature":"\#(Data(signature).base64EncodedString())"}"#.utf8)
    }
}

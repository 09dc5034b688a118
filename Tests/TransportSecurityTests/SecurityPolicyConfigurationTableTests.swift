import PKIBuilder
import Testing
import TransportSecurity

/// The ten configurations of a security policy against every lab server, with pins on the legitimate leaf, on
/// the legitimate root and on the self-signed certificate. Each expected outcome is written out.
@Suite("The ten configurations × the lab servers")
struct SecurityPolicyConfigurationTableTests {
    enum PinTarget: String, CaseIterable { case leaf, root, selfSigned }

    struct Row: CustomTestStringConvertible, Sendable {
        let configuration: String
        let mode: SSLPinningMode
        let allowInvalid: Bool
        let validatesDomain: Bool
        let pins: PinTarget
        /// One mark per server in `servers` order: `+` trusted, `-` rejected.
        let expected: String

        var testDescription: String {
            "#\(configuration) \(mode) AC=\(allowInvalid) VD=\(validatesDomain) pins=\(pins)"
        }
    }

    /// Column order of `Row.expected`.
    static let servers: [TrustLab.Server] = [
        .legitimate, .interceptingProxy, .untrustedRoot, .selfSigned, .wrongHost,
        .expired, .notYetValid, .reissuedSameKey, .reissuedNewKey, .appendedGenuineChain,
    ]

    static let rows: [Row] = [
        // columns: legit, mitm-trusted, mitm-untrusted, self-signed, wrong-host, expired, not-yet-valid, reissue-same-key, reissue-new-key,
        // appended-genuine (an attacker's own leaf, then the genuine leaf, intermediate and root:
        // accepted only where everything is)
        Row(configuration: "1", mode: .none, allowInvalid: false, validatesDomain: true, pins: .leaf, expected: "++-----++-"),
        Row(configuration: "2", mode: .none, allowInvalid: false, validatesDomain: false, pins: .leaf, expected: "++--+--++-"),
        Row(configuration: "3", mode: .none, allowInvalid: true, validatesDomain: true, pins: .leaf, expected: "----------"),
        Row(configuration: "3", mode: .none, allowInvalid: true, validatesDomain: false, pins: .leaf, expected: "++++++++++"),
        Row(configuration: "4", mode: .publicKey, allowInvalid: false, validatesDomain: true, pins: .leaf, expected: "+------+--"),
        Row(configuration: "4", mode: .publicKey, allowInvalid: false, validatesDomain: true, pins: .root, expected: "+------++-"),
        Row(configuration: "4", mode: .publicKey, allowInvalid: false, validatesDomain: true, pins: .selfSigned, expected: "----------"),
        Row(configuration: "5", mode: .publicKey, allowInvalid: false, validatesDomain: false, pins: .leaf, expected: "+------+--"),
        Row(configuration: "5", mode: .publicKey, allowInvalid: false, validatesDomain: false, pins: .root, expected: "+---+--++-"),
        Row(configuration: "6", mode: .publicKey, allowInvalid: true, validatesDomain: true, pins: .leaf, expected: "+----+++--"),
        Row(configuration: "6", mode: .publicKey, allowInvalid: true, validatesDomain: true, pins: .root, expected: "+------++-"),
        Row(configuration: "6", mode: .publicKey, allowInvalid: true, validatesDomain: true, pins: .selfSigned, expected: "---+------"),
        Row(configuration: "6", mode: .publicKey, allowInvalid: true, validatesDomain: false, pins: .leaf, expected: "+----+++--"),
        Row(configuration: "6", mode: .publicKey, allowInvalid: true, validatesDomain: false, pins: .root, expected: "+---+--++-"),
        Row(configuration: "7", mode: .certificate, allowInvalid: false, validatesDomain: true, pins: .leaf, expected: "+---------"),
        Row(configuration: "7", mode: .certificate, allowInvalid: false, validatesDomain: true, pins: .root, expected: "+------++-"),
        Row(configuration: "7", mode: .certificate, allowInvalid: false, validatesDomain: true, pins: .selfSigned, expected: "----------"),
        Row(configuration: "8", mode: .certificate, allowInvalid: false, validatesDomain: false, pins: .leaf, expected: "+---------"),
        Row(configuration: "8", mode: .certificate, allowInvalid: false, validatesDomain: false, pins: .root, expected: "+---+--++-"),
        Row(configuration: "9", mode: .certificate, allowInvalid: true, validatesDomain: true, pins: .leaf, expected: "+---------"),
        Row(configuration: "9", mode: .certificate, allowInvalid: true, validatesDomain: true, pins: .root, expected: "+------++-"),
        Row(configuration: "9", mode: .certificate, allowInvalid: true, validatesDomain: true, pins: .selfSigned, expected: "---+------"),
        Row(configuration: "10", mode: .certificate, allowInvalid: true, validatesDomain: false, pins: .leaf, expected: "+---------"),
        Row(configuration: "10", mode: .certificate, allowInvalid: true, validatesDomain: false, pins: .root, expected: "+---+--++-"),
        Row(configuration: "10", mode: .certificate, allowInvalid: true, validatesDomain: false, pins: .selfSigned, expected: "---+------"),
    ]

    @Test("configuration outcome per server", arguments: rows)
    func configuration(_ row: Row) async throws {
        let fixture = LabFixture.shared
        let marks = Array(row.expected.filter { $0 != " " })
        try #require(marks.count == Self.servers.count, "row must list one mark per server")
        let pinned: IssuedCertificate
        switch row.pins {
        case .leaf: pinned = fixture.lab.leaf
        case .root: pinned = fixture.lab.root
        case .selfSigned: pinned = fixture.lab.selfSigned
        }
        let policy = SecurityPolicy(
            pinningMode: row.mode,
            pinnedCertificates: row.mode == .none ? [] : [pinned.der],
            allowInvalidCertificates: row.allowInvalid,
            validatesDomainName: row.validatesDomain
        )
        for (server, mark) in zip(Self.servers, marks) {
            let decision = await policy.evaluate(fixture.trust(server), forDomain: fixture.host)
            #expect(
                decision.isTrusted == (mark == "+"),
                "\(row.testDescription) against \(server.label): expected \(mark == "+" ? "trusted" : "rejected"), got \(decision)"
            )
        }
    }
}

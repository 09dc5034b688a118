import Foundation
import PKIBuilder
import Testing
import TransportSecurity
import X509

/// Names from certificates reach people and scripts only with their control characters written
/// out: a hostile certificate cannot colour a terminal, move its cursor, or print a line of its own.
@Suite("Control characters in certificate names")
struct ControlCharacterNamesTests {
    let lab = LabFixture.shared.lab
    var store: TrustStore { TrustStore(lab.systemRoots.map(\.der), origin: "lab system store") }

    /// Whether `text` holds a control or bidirectional formatting character.
    func hasHidden(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0x00...0x1F).contains($0.value) || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) }
    }

    @Test("a subject, an issuer and SAN names with an escape sequence, a line break and a right-to-left override are shown escaped, in summaries, decisions and details")
    func namesAreEscaped() async throws {
        let hostile = "evil\u{1B}[2J\ntrusted\r\u{202E}gnp.exe"
        var caProfile = CertificateProfile.certificateAuthority("CA \(hostile)")
        caProfile.notBeforeOffset = -86_400
        let ca = try lab.pki.issue(caProfile, by: lab.root)
        var profile = CertificateProfile.server("\(hostile).example.test")
        // IA5String: ASCII control characters only.
        profile.dnsNames = ["evil\u{1B}[2J\ntrusted\r.example.test"]
        let leaf = try lab.pki.issue(profile, by: ca)

        for text in [leaf.der.subjectSummary, leaf.der.issuerSummary] {
            #expect(!hasHidden(text), "\(text.debugDescription)")
            #expect(text.contains(#"evil\u{1B}[2J\u{A}trusted\u{D}\u{202E}gnp.exe"#), "\(text)")
        }
        let details = CertificateDetails(leaf.der, at: lab.pki.now)
        #expect(!hasHidden(details.subject) && !hasHidden(details.issuer))
        #expect(details.subjectAlternativeNames.allSatisfy { !hasHidden($0) }, "\(details.subjectAlternativeNames)")

        // Refused for another host: the reason names the certificate and its SAN names.
        let trust = ServerTrust(chain: [leaf.der, ca.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: lab.pki.now)
        let decision = await SecurityPolicy.default.evaluate(trust, forDomain: lab.host)
        #expect(!decision.isTrusted)
        #expect(!hasHidden(decision.reason), "\(decision.reason.debugDescription)")
        #expect(decision.checks.allSatisfy { !hasHidden($0.detail) && !hasHidden($0.name) })
        #expect(decision.reason.contains(#"\u{A}trusted"#), "\(decision.reason)")
        #expect(!decision.description.contains("\ntrusted"), "no line of the report begins with the certificate's word")
    }

    @Test("text without control characters is kept as it is")
    func plainTextKept() throws {
        #expect(lab.leaf.der.subjectSummary == "CN=\(lab.host)")
        let decision = TrustDecision(isTrusted: false, decider: .evaluator("test"), reason: "Zürich, 東京, tab-free")
        #expect(decision.reason == "Zürich, 東京, tab-free")
    }
}

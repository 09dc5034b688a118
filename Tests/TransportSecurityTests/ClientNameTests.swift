import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import X509

/// Who a client is and whether a server allows it: SPIFFE IDs read strictly, the names of a
/// client certificate, name patterns, and the client-certificate evaluator's name check.
@Suite("Client names: SPIFFE IDs, peer identities and allowed names")
struct ClientNameTests {
    let fixture = LabFixture.shared
    var pki: PKI { fixture.lab.pki }

    // MARK: SPIFFE IDs

    @Test("a SPIFFE ID is read into its trust domain and path")
    func spiffeIDs() throws {
        let id = try SPIFFEID("spiffe://payments.example/ns/checkout/sa/api-v2_1.x")
        #expect(id.trustDomain == "payments.example")
        #expect(id.path == "/ns/checkout/sa/api-v2_1.x")
        #expect(id.description == "spiffe://payments.example/ns/checkout/sa/api-v2_1.x")
        #expect(!id.isTrustDomainID)
        #expect(try SPIFFEID("spiffe://payments.example").isTrustDomainID)
        #expect(try SPIFFEID("spiffe://td/A/b").path == "/A/b", "upper case is allowed in the path")
    }

    @Test(
        "text that is no SPIFFE ID is refused, naming the reason",
        arguments: [
            ("https://payments.example/x", SPIFFEIDError.Reason.notSPIFFEScheme, "does not start with spiffe://"),
            ("SPIFFE://payments.example/x", .schemeNotLowercase, "lower case"),
            ("spiffe:///x", .emptyTrustDomain, "trust domain is empty"),
            ("spiffe://Payments.example/x", .trustDomainNotLowercase, "trust domain must be lower case"),
            ("spiffe://pay ments/x", .trustDomainCharacter(" "), "not ' '"),
            ("spiffe://payments.example:8443/x", .port, "no port"),
            ("spiffe://user@payments.example/x", .userInfo, "no user part"),
            ("spiffe://payments.example/ns//x", .emptySegment, "empty segment"),
            ("spiffe://payments.example/ns/", .trailingSlash, "ends with '/'"),
            ("spiffe://payments.example/ns/../admin", .dotSegment, "'..'"),
            ("spiffe://payments.example/ns/./x", .dotSegment, "'.'"),
            ("spiffe://payments.example/ns/a+b", .pathCharacter("+"), "not '+'"),
            ("spiffe://payments.example/ns\n", .pathCharacter("\n"), "not '\\u{A}'"),
            ("spiffe://payments.example/x?y=1", .query, "no query"),
            ("spiffe://payments.example/x#y", .fragment, "no fragment"),
            ("spiffe://payments.example/a%2Fb", .percentEncoding, "percent-encoding"),
            ("spiffe://payments.example/café", .nonASCII, "ASCII only"),
            ("spiffe://td/" + String(repeating: "a", count: 2048), .tooLong, "2,048 bytes"),
        ]
    )
    func malformedSPIFFEIDs(text: String, reason: SPIFFEIDError.Reason, words: String) {
        #expect {
            try SPIFFEID(text)
        } throws: { error in
            guard let error = error as? SPIFFEIDError else { return false }
            return error.reason == reason && error.description.contains(words) && error.description.contains("is not a SPIFFE ID")
                && !error.description.contains("\n")
        }
    }

    @Test("a SPIFFE ID contains itself and the IDs below it, a whole segment at a time")
    func spiffeContainment() throws {
        let namespace = try SPIFFEID("spiffe://td/ns/pay")
        #expect(namespace.contains(try SPIFFEID("spiffe://td/ns/pay")))
        #expect(namespace.contains(try SPIFFEID("spiffe://td/ns/pay/sa/api")))
        #expect(!namespace.contains(try SPIFFEID("spiffe://td/ns/payments/sa/api")))
        #expect(!namespace.contains(try SPIFFEID("spiffe://other/ns/pay/sa/api")))
        #expect(try SPIFFEID("spiffe://td").contains(try SPIFFEID("spiffe://td/anything")))
    }

    // MARK: Peer identities

    @Test("a peer identity holds every name of the certificate, and its SPIFFE ID when it is an SVID")
    func peerIdentity() throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        var profile = CertificateProfile.client(
            "checkout",
            dnsNames: ["checkout.payments.example"],
            emailAddresses: ["ops@Payments.Example"],
            uris: ["spiffe://payments.example/ns/checkout/sa/api", "https://payments.example/checkout"]
        )
        profile.ipAddresses = ["10.0.0.5", "2001:db8:0:0::1"]
        let identity = try PeerIdentity(certificate: pki.issue(profile, by: ca).der)
        #expect(identity.commonNames == ["checkout"])
        #expect(identity.dnsNames == ["checkout.payments.example"])
        #expect(identity.ipAddresses == ["10.0.0.5", "2001:db8::1"])
        #expect(identity.emailAddresses == ["ops@Payments.Example"])
        #expect(identity.uris == ["spiffe://payments.example/ns/checkout/sa/api", "https://payments.example/checkout"])
        #expect(identity.spiffeID == (try SPIFFEID("spiffe://payments.example/ns/checkout/sa/api")))
        #expect(identity.description == "spiffe://payments.example/ns/checkout/sa/api")
        #expect(identity.names == [
            "CN=checkout", "DNS:checkout.payments.example", "IP:10.0.0.5", "IP:2001:db8::1", "email:ops@Payments.Example",
            "URI:spiffe://payments.example/ns/checkout/sa/api", "URI:https://payments.example/checkout",
        ])
        #expect(identity.subject.contains("CN=checkout"))
        #expect(identity.spkiPin == identity.certificate.spkiPin)
    }

    @Test("a swift-certificates validated chain (Vapor's Request.peerCertificateChain) gives its leaf's identity")
    func identityOfValidatedChain() throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let leaf = try pki.issue(.client("checkout", uris: ["spiffe://td/ns/checkout/sa/api"]), by: ca)
        let chain = X509.ValidatedCertificateChain(uncheckedCertificateChain: [leaf.certificate, ca.certificate])
        let identity = try chain.peerIdentity()
        #expect(identity.spiffeID?.description == "spiffe://td/ns/checkout/sa/api")
        #expect(identity.certificate == leaf.der)
    }

    @Test("a certificate whose subjectAltName does not decode gives an error naming it, not an identity without names")
    func malformedNames() throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        var profile = CertificateProfile.client("garbled")
        profile.editExtensions = { extensions in
            try extensions.append(Certificate.Extension(oid: .X509ExtensionID.subjectAlternativeName, critical: false, value: [0x04, 0x01, 0x00]))
        }
        let leaf = try pki.issue(profile, by: ca)
        #expect {
            try PeerIdentity(certificate: leaf.der)
        } throws: { error in
            let text = String(describing: error)
            return error is CertificateLoadingError && text.contains("CN=garbled") && text.contains("subjectAltName extension does not decode")
        }
    }

    @Test(
        "no SPIFFE ID without exactly one well-formed workload ID among the URIs",
        arguments: [
            ["spiffe://a.example/x", "spiffe://b.example/y"],
            ["spiffe://A.example/x"],
            ["spiffe://a.example"],
            ["SPIFFE://a.example/x", "spiffe://a.example/x"],
            ["https://a.example/x"],
        ]
    )
    func noSPIFFEID(uris: [String]) throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let identity = try PeerIdentity(certificate: pki.issue(.client("w", uris: uris), by: ca).der)
        #expect(identity.spiffeID == nil)
        #expect(identity.description == identity.subject)
        #expect(identity.uris == uris)
    }

    // MARK: Patterns

    @Test("patterns are read from text and written back the same way")
    func patternText() throws {
        let cases: [(String, PeerNamePattern, String)] = [
            ("spiffe://td/ns/a/sa/b", .spiffeID(try SPIFFEID("spiffe://td/ns/a/sa/b")), "spiffe://td/ns/a/sa/b"),
            ("spiffe://td/ns/a/*", .spiffeIDPrefix(try SPIFFEID("spiffe://td/ns/a")), "spiffe://td/ns/a/*"),
            ("spiffe://td", .spiffeTrustDomain("td"), "spiffe://td"),
            ("DNS:Client.Partner.Example.", .dnsName("client.partner.example"), "DNS:client.partner.example"),
            ("dns:*.partner.example", .dnsName("*.partner.example"), "DNS:*.partner.example"),
            ("email:ops@partner.example", .email("ops@partner.example"), "email:ops@partner.example"),
            ("URI:https://partner.example/c", .uri("https://partner.example/c"), "URI:https://partner.example/c"),
            ("IP:2001:db8:0::1", .ipAddress("2001:db8::1"), "IP:2001:db8::1"),
            ("CN=Partner Gateway", .commonName("Partner Gateway"), "CN=Partner Gateway"),
        ]
        for (text, pattern, written) in cases {
            #expect(try PeerNamePattern(text) == pattern, "\(text)")
            #expect(pattern.description == written)
            #expect(try PeerNamePattern(written) == pattern, "\(written) reads back")
        }
    }

    @Test(
        "text that is no pattern is refused, naming the reason",
        arguments: [
            ("partner.example", "write it as spiffe://"),
            ("DNS:", "nothing follows dns:"),
            ("DNS:*", "not a DNS name"),
            ("DNS:*.com", "not a DNS name"),
            ("DNS:a.*.example", "not a DNS name"),
            ("DNS:bad name.example", "not a DNS name"),
            ("DNS:büro.example", "not a DNS name"),
            ("email:partner.example", "local part, '@' and a domain"),
            ("email:ops@", "local part, '@' and a domain"),
            ("URI:partner.example/x", "starts with its scheme"),
            ("IP:10.0.0.300", "not an IPv4 or IPv6 address"),
            ("IP:0x0a000001", "not an IPv4 or IPv6 address"),
            ("CN=evil\nCN=admin", "control or line-break"),
            ("O=Partner", "unknown kind o="),
            ("spiffe://TD/x", "lower case"),
            ("spiffe://td/x/", "ends with '/'"),
        ]
    )
    func malformedPatterns(text: String, words: String) {
        #expect {
            try PeerNamePattern(text)
        } throws: { error in
            guard let error = error as? PeerNamePatternError else { return false }
            return error.text == text && error.description.contains(words) && error.description.contains("is not a peer name pattern")
        }
    }

    @Test("each kind of pattern matches the names it should and no others")
    func patternMatching() throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        var profile = CertificateProfile.client(
            "Partner Gateway",
            dnsNames: ["GW.Partner.Example", "*.wild.partner.example"],
            emailAddresses: ["Ops@Partner.Example"],
            uris: ["spiffe://td/ns/pay/sa/api", "urn:partner:gateway"]
        )
        profile.ipAddresses = ["10.0.0.5", "2001:db8::1"]
        let identity = try PeerIdentity(certificate: pki.issue(profile, by: ca).der)
        let matching: [String: String] = [
            "spiffe://td/ns/pay/sa/api": "URI:spiffe://td/ns/pay/sa/api",
            "spiffe://td/ns/pay/*": "URI:spiffe://td/ns/pay/sa/api",
            "spiffe://td/*": "URI:spiffe://td/ns/pay/sa/api",
            "spiffe://td": "URI:spiffe://td/ns/pay/sa/api",
            "DNS:gw.partner.example": "DNS:GW.Partner.Example",
            "DNS:*.partner.example": "DNS:GW.Partner.Example",
            "email:Ops@partner.example": "email:Ops@Partner.Example",
            "URI:urn:partner:gateway": "URI:urn:partner:gateway",
            "IP:10.0.0.5": "IP:10.0.0.5",
            "IP:2001:db8:0:0:0:0:0:1": "IP:2001:db8::1",
            "CN=Partner Gateway": "CN=Partner Gateway",
        ]
        for (text, name) in matching {
            #expect(try PeerNamePattern(text).match(in: identity) == name, "\(text)")
        }
        let notMatching = [
            "spiffe://td/ns/pay/sa/api2", "spiffe://td/ns/pa/*", "spiffe://td/ns/payments/*", "spiffe://other",
            "DNS:partner.example", "DNS:*.gw.partner.example", "DNS:x.wild.partner.example", "DNS:*.wild.partner.example",
            "email:ops@partner.example", "URI:URN:partner:gateway", "URI:spiffe://td/ns/pay/sa",
            "IP:10.0.0.6", "CN=partner gateway", "CN=Partner",
        ]
        #expect(PeerNamePattern.dnsName("GW.partner.EXAMPLE").match(in: identity) == "DNS:GW.Partner.Example", "a case made directly")
        #expect(PeerNamePattern.ipAddress("2001:DB8:0::1").match(in: identity) == "IP:2001:db8::1", "a case made directly")
        for text in notMatching {
            #expect(try PeerNamePattern(text).match(in: identity) == nil, "\(text)")
        }
        // `/*` means below: the namespace's workloads, not the namespace's own ID.
        let namespace = try PeerIdentity(certificate: pki.issue(.client("Namespace", uris: ["spiffe://td/ns/pay"]), by: ca).der)
        #expect(try PeerNamePattern("spiffe://td/ns/pay/*").match(in: namespace) == nil)
        #expect(try PeerNamePattern("spiffe://td/ns/pay").match(in: namespace) == "URI:spiffe://td/ns/pay")
        #expect(try PeerNamePattern("spiffe://td/ns/*").match(in: namespace) == "URI:spiffe://td/ns/pay")
    }

    // MARK: The evaluator's name check

    func trust(_ certificate: IssuedCertificate) -> ServerTrust {
        ServerTrust(chain: [certificate.der], policy: .sslClient, systemStore: .empty, evaluationTime: pki.now)
    }

    @Test("the client-certificate evaluator accepts a client carrying an allowed name and says which")
    func allowedClient() async throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let checkout = try pki.issue(.client("checkout", uris: ["spiffe://payments.example/ns/checkout/sa/api"]), by: ca)
        let evaluator = ClientCertificateEvaluator(
            clientCAs: [ca.der],
            allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/refunds/*"), try PeerNamePattern("spiffe://payments.example/ns/checkout/*")]
        )
        let decision = await evaluator.evaluate(trust(checkout), forHost: "ignored")
        #expect(decision.isTrusted)
        #expect(decision.reason.contains("carries the allowed name URI:spiffe://payments.example/ns/checkout/sa/api"))
        #expect(decision.checks.last?.name == "client name")
        #expect(decision.checks.last?.passed == true)
    }

    @Test("a client whose names are not allowed is refused with the names seen and the names allowed")
    func refusedClient() async throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let intruder = try pki.issue(.client("batch", dnsNames: ["batch.internal.example"], uris: ["spiffe://payments.example/ns/batch/sa/job"]), by: ca)
        let evaluator = ClientCertificateEvaluator(
            clientCAs: [ca.der],
            allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/*"), try PeerNamePattern("DNS:*.partner.example")]
        )
        let decision = await evaluator.evaluate(trust(intruder), forHost: "ignored")
        #expect(!decision.isTrusted)
        #expect(decision.reason.contains("carries none of the allowed names"))
        #expect(decision.reason.contains("it names CN=batch, DNS:batch.internal.example, URI:spiffe://payments.example/ns/batch/sa/job"))
        #expect(decision.reason.contains("allowed: spiffe://payments.example/ns/checkout/*, DNS:*.partner.example"))
        #expect(decision.checks.map(\.passed) == [true, false], "the chain validated; the name check failed")
    }

    @Test("a certificate with two SPIFFE IDs matches no SPIFFE pattern, and the refusal says why")
    func twoSPIFFEIDs() async throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let ambiguous = try pki.issue(.client("both", uris: ["spiffe://td/ns/checkout/sa/api", "spiffe://td/ns/admin/sa/root"]), by: ca)
        let evaluator = ClientCertificateEvaluator(clientCAs: [ca.der], allowedNames: [try PeerNamePattern("spiffe://td/ns/checkout/*")])
        let decision = await evaluator.evaluate(trust(ambiguous), forHost: "ignored")
        #expect(!decision.isTrusted)
        #expect(decision.reason.contains("its spiffe: URIs make no valid SPIFFE ID"))
    }

    @Test("names are checked only for a chain that validates; pins and names must both hold")
    func namesAfterValidationAndPins() async throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let otherCA = try pki.issueRoot(.certificateAuthority("Other CA"))
        let allowed = try PeerNamePattern("CN=partner")
        let stranger = try pki.issue(.client("partner"), by: otherCA)
        let untrusted = await ClientCertificateEvaluator(clientCAs: [ca.der], allowedNames: [allowed]).evaluate(trust(stranger), forHost: "")
        #expect(!untrusted.isTrusted)
        #expect(!untrusted.checks.contains { $0.name == "client name" }, "no name check for a chain that does not validate")

        let partner = try pki.issue(.client("partner"), by: ca)
        let other = try pki.issue(.client("partner"), by: ca)
        let pinned = ClientCertificateEvaluator(clientCAs: [ca.der], pins: [partner.der.spkiPin], allowedNames: [allowed])
        let both = await pinned.evaluate(trust(partner), forHost: "")
        #expect(both.isTrusted)
        #expect(both.reason.contains("carries the pinned key") && both.reason.contains("carries the allowed name CN=partner"))
        let wrongKey = await pinned.evaluate(trust(other), forHost: "")
        #expect(!wrongKey.isTrusted, "the right name with the wrong key")
        #expect(wrongKey.pinMismatch != nil)
        let noNames = await ClientCertificateEvaluator(clientCAs: [ca.der]).evaluate(trust(stranger), forHost: "")
        #expect(!noNames.isTrusted)
        #expect(await ClientCertificateEvaluator(clientCAs: [ca.der]).evaluate(trust(other), forHost: "").isTrusted, "no names: any client of the CA")
    }

    @Test("evaluators with different allowed names are different evaluators (decisions are cached apart)")
    func evaluatorIdentity() throws {
        let ca = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        let a = ClientCertificateEvaluator(clientCAs: [ca.der], allowedNames: [try PeerNamePattern("CN=a")])
        let b = ClientCertificateEvaluator(clientCAs: [ca.der], allowedNames: [try PeerNamePattern("CN=b")])
        #expect(a != b)
        #expect(AnyServerTrustEvaluator(a) != AnyServerTrustEvaluator(b))
        #expect(a == ClientCertificateEvaluator(clientCAs: [ca.der], allowedNames: [try PeerNamePattern("CN=a")]))
    }
}

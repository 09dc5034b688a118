import Foundation
import NIOSSL
import PKIBuilder
import Testing
import TransportSecurityNIO

@Suite("TLS failures in words")
struct TLSFailureTextTests {
    @Test("BoringSSL's reason code is found in swift-nio-ssl's description and kept after the sentence")
    func reasonCodes() {
        let dump = "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at /x/tls_record.cc:127]))"
        #expect(TLSFailureText.reasonCode(in: dump) == "WRONG_VERSION_NUMBER")
        #expect(TLSFailureText.reasonCode(in: "no code here") == nil)
        #expect(TLSFailureText.describe(NIOSSLError.uncleanShutdown) == "the server closed the connection during the handshake, without saying why")
        struct Dumped: Error, CustomStringConvertible { let description: String }
        let eof = Dumped(description: "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error:  EOF during handshake]))")
        #expect(TLSFailureText.describe(eof) == "the server closed the connection during the handshake, without saying why")
        #expect(TLSFailureText.describe(eof, clientCertificatePresented: false).hasSuffix("(a server that requires a client certificate may close so when none is presented)"))
        #expect(TLSFailureText.describe(Dumped(description: dump)) == "the server did not answer in TLS (a plain HTTP port? use http://) [WRONG_VERSION_NUMBER]")
        #expect(TLSFailureText.describe(Dumped(description: "x OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED y")).hasPrefix("the server requires a client certificate"))
        #expect(TLSFailureText.describe(Dumped(description: "x OPENSSL_internal:SOMETHING_NEW y")) == "the TLS handshake failed [SOMETHING_NEW]")
        #expect(TLSFailureText.describe(Dumped(description: "x OPENSSL_internal:NO_RENEGOTIATION y")).hasPrefix("the server asked to renegotiate TLS again"))
        #expect(TLSFailureText.describe(Dumped(description: "x OPENSSL_internal:SERVER_CERT_CHANGED y")).hasPrefix("the server presented another certificate when renegotiating"))
        #expect(TLSFailureText.describe(Dumped(description: "plain")) == "plain")
    }

    @Test("a refusal of the client's certificate when none was presented (Go's servers say bad_certificate) says a certificate is required; when one was, or when it is not known, that it was rejected")
    func refusalWithoutCertificate() {
        struct Dumped: Error, CustomStringConvertible { let description: String }
        let badCertificate = Dumped(description: "x OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE y")
        #expect(TLSFailureText.describe(badCertificate, clientCertificatePresented: false)
            == "the server requires a client certificate and none was presented [SSLV3_ALERT_BAD_CERTIFICATE]")
        #expect(TLSFailureText.describe(badCertificate, clientCertificatePresented: true)
            == "the server rejected the client certificate presented [SSLV3_ALERT_BAD_CERTIFICATE]")
        #expect(TLSFailureText.describe(badCertificate) == "the server rejected the client certificate presented [SSLV3_ALERT_BAD_CERTIFICATE]")
        let unknownCA = Dumped(description: "x OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA y")
        #expect(TLSFailureText.describe(unknownCA, clientCertificatePresented: false).hasPrefix("the server requires a client certificate and none was presented"))
        let denied = Dumped(description: "x OPENSSL_internal:TLSV1_ALERT_ACCESS_DENIED y")
        #expect(!TLSFailureText.describe(denied, clientCertificatePresented: false).contains("none was presented"), "access denied may be about anything")
        let decryptError = Dumped(description: "x OPENSSL_internal:TLSV1_ALERT_DECRYPT_ERROR y")
        #expect(TLSFailureText.describe(decryptError, clientCertificatePresented: true).contains("most likely the private key that signed is not the client certificate's"))
        #expect(TLSFailureText.describe(decryptError) == "the server could not verify a signature or a message of the handshake [TLSV1_ALERT_DECRYPT_ERROR]")
        let handshake = Dumped(description: "x OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE y")
        #expect(TLSFailureText.describe(handshake, clientCertificatePresented: false).hasPrefix("the server refused the handshake (no cipher suite"))
    }

    @Test("a refusal of the presented identity says when its certificate expired, or from when it is valid; a valid one, or another failure, adds nothing")
    func presentedIdentityValidity() throws {
        struct Dumped: Error, CustomStringConvertible { let description: String }
        let pki = PKI()
        let ca = try pki.issueRoot(.certificateAuthority("Client CA"))
        func identity(_ name: String, from notBefore: TimeInterval, to notAfter: TimeInterval) throws -> ClientIdentity {
            var profile = CertificateProfile.client(name)
            profile.notBeforeOffset = notBefore
            profile.notAfterOffset = notAfter
            let issued = try pki.issue(profile, by: ca)
            return try ClientIdentity(certificateChainPEM: issued.pemString, privateKeyPEM: issued.privateKeyPEM)
        }
        let expired = try identity("expired", from: -86_400 * 30, to: -86_400)
        let future = try identity("future", from: 86_400, to: 86_400 * 30)
        let valid = try identity("valid", from: -86_400, to: 86_400)
        let refused = Dumped(description: "x OPENSSL_internal:SSLV3_ALERT_CERTIFICATE_EXPIRED y")
        let expiredText = TLSFailureText.describe(refused, clientCertificatePresented: true, presentedIdentity: (expired, pki.now))
        #expect(expiredText == "the server rejected the client certificate presented [SSLV3_ALERT_CERTIFICATE_EXPIRED]; "
            + "the client certificate presented (CN=expired) expired at \(expired.leaf.certificate.notValidAfter.formatted(.iso8601))")
        #expect(TLSFailureText.describe(refused, clientCertificatePresented: true, presentedIdentity: (future, pki.now))
            .hasSuffix("; the client certificate presented (CN=future) is not valid before \(future.leaf.certificate.notValidBefore.formatted(.iso8601))"))
        #expect(TLSFailureText.describe(refused, clientCertificatePresented: true, presentedIdentity: (valid, pki.now))
            == "the server rejected the client certificate presented [SSLV3_ALERT_CERTIFICATE_EXPIRED]")
        let otherFailure = Dumped(description: "x OPENSSL_internal:WRONG_VERSION_NUMBER y")
        #expect(!TLSFailureText.describe(otherFailure, presentedIdentity: (expired, pki.now)).contains("expired at"))
    }
}

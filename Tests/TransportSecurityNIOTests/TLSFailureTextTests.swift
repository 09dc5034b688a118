import NIOSSL
import Testing
import TransportSecurityNIO

@Suite("TLS failures in words")
struct TLSFailureTextTests {
    @Test("BoringSSL's reason code is found in swift-nio-ssl's description and kept after the sentence")
    func reasonCodes() {
        let dump = "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at /x/tls_record.cc:127]))"
        #expect(TLSFailureText.reasonCode(in: dump) == "WRONG_VERSION_NUMBER")
        #expect(TLSFailureText.reasonCode(in: "no code here") == nil)
        #expect(TLSFailureText.describe(NIOSSLError.uncleanShutdown) == "the server closed the connection during the handshake")
        struct Dumped: Error, CustomStringConvertible { let description: String }
        #expect(TLSFailureText.describe(Dumped(description: dump)) == "the server did not answer in TLS (a plain HTTP port? use http://) [WRONG_VERSION_NUMBER]")
        #expect(TLSFailureText.describe(Dumped(description: "x OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED y")).hasPrefix("the server requires a client certificate"))
        #expect(TLSFailureText.describe(Dumped(description: "x OPENSSL_internal:SOMETHING_NEW y")) == "the TLS handshake failed [SOMETHING_NEW]")
        #expect(TLSFailureText.describe(Dumped(description: "plain")) == "plain")
    }
}

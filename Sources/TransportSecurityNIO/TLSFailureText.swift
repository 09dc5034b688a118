import Foundation
import NIOSSL

/// A TLS handshake failure from swift-nio-ssl in words a person can act on, with BoringSSL's
/// reason code kept at the end: "the server did not answer in TLS (a plain HTTP port? use
/// http://) [WRONG_VERSION_NUMBER]" instead of `handshakeFailed(NIOSSL.BoringSSLError.sslError(
/// [Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at …]))`.
package enum TLSFailureText {
    /// The failure in words.
    /// - Parameters:
    ///   - error: What swift-nio-ssl reported.
    ///   - clientCertificatePresented: Whether the client presented a certificate, when known: a
    ///     server refusing a client that presented none (some say `bad_certificate`, as Go's
    ///     does) requires one.
    ///   - presentedIdentity: The identity presented, when known, and the time the client judges
    ///     by: a refusal of a certificate outside its validity says so ("… expired at …").
    package static func describe(
        _ error: any Error,
        clientCertificatePresented: Bool? = nil,
        presentedIdentity: (identity: ClientIdentity, at: Date)? = nil
    ) -> String {
        let text = failureText(error, clientCertificatePresented: clientCertificatePresented)
        guard let (identity, date) = presentedIdentity, let reason = reasonCode(in: String(describing: error)),
            rejectsClientCertificate(reason) || reason == "TLSV1_ALERT_DECRYPT_ERROR",
            let note = validityNote(of: identity, at: date)
        else { return text }
        return text + "; " + note
    }

    /// What is wrong with the validity of `identity`'s certificate at `date`, if anything.
    private static func validityNote(of identity: ClientIdentity, at date: Date) -> String? {
        let certificate = identity.leaf.certificate
        let when = { (date: Date) in date.formatted(.iso8601) }
        if date > certificate.notValidAfter {
            return "the client certificate presented (\(identity.leaf.subjectSummary)) expired at \(when(certificate.notValidAfter))"
        }
        if date < certificate.notValidBefore {
            return "the client certificate presented (\(identity.leaf.subjectSummary)) is not valid before \(when(certificate.notValidBefore))"
        }
        return nil
    }

    /// The failure in words, without what the presented identity adds.
    private static func failureText(_ error: any Error, clientCertificatePresented: Bool?) -> String {
        let text = String(describing: error)
        // The connection ended without an alert: swift-nio-ssl's unclean shutdown, or BoringSSL's
        // "EOF during handshake" (Java's HttpsServer closes so on a client it refuses).
        if isUncleanShutdown(error) || text.contains("EOF during handshake") {
            return closedDuringHandshake(clientCertificatePresented: clientCertificatePresented)
        }
        guard let reason = reasonCode(in: text) else { return text }
        // Access denied may be about anything else (an address, say).
        if clientCertificatePresented == false, rejectsClientCertificate(reason), reason != "TLSV1_ALERT_ACCESS_DENIED" {
            return "the server requires a client certificate and none was presented [\(reason)]"
        }
        if reason == "TLSV1_ALERT_DECRYPT_ERROR", clientCertificatePresented == true {
            return "the server could not verify the client's handshake signature, the proof that it holds its certificate's key: "
                + "most likely the private key that signed is not the client certificate's [\(reason)]"
        }
        return "\(sentence(for: reason)) [\(reason)]"
    }

    /// Whether `error` is swift-nio-ssl's report of a connection ended without TLS's
    /// close_notify.
    package static func isUncleanShutdown(_ error: any Error) -> Bool {
        if case NIOSSLError.uncleanShutdown = error { return true }
        return false
    }

    /// A connection the server closed, without an alert, before the handshake ended.
    private static func closedDuringHandshake(clientCertificatePresented: Bool?) -> String {
        let said = "the server closed the connection during the handshake, without saying why"
        return clientCertificatePresented == false ? said + " (a server that requires a client certificate may close so when none is presented)" : said
    }

    /// Whether `reason` is an alert refusing the client's certificate.
    private static func rejectsClientCertificate(_ reason: String) -> Bool {
        [
            "SSLV3_ALERT_BAD_CERTIFICATE", "TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
            "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE", "TLSV1_ALERT_ACCESS_DENIED", "SSLV3_ALERT_CERTIFICATE_EXPIRED",
            "SSLV3_ALERT_CERTIFICATE_REVOKED",
        ].contains(reason)
    }

    /// BoringSSL's reason code: the upper-case word after `OPENSSL_internal:`.
    package static func reasonCode(in text: String) -> String? {
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let code = text[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        return code.isEmpty ? nil : String(code)
    }

    private static func sentence(for reason: String) -> String {
        switch reason {
        case "WRONG_VERSION_NUMBER", "HTTP_REQUEST", "HTTPS_PROXY_REQUEST":
            return "the server did not answer in TLS (a plain HTTP port? use http://)"
        case "UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_PROTOCOL_VERSION":
            return "the server and this client have no TLS version in common"
        case "NO_SHARED_CIPHER", "NO_CIPHERS_AVAILABLE":
            return "the server and this client have no cipher suite in common"
        case "SSLV3_ALERT_HANDSHAKE_FAILURE":
            return "the server refused the handshake (no cipher suite or key exchange in common, or a client certificate it requires)"
        case "TLSV1_ALERT_CERTIFICATE_REQUIRED", "TLSV13_ALERT_CERTIFICATE_REQUIRED", "PEER_DID_NOT_RETURN_A_CERTIFICATE":
            return "the server requires a client certificate and none was presented"
        case _ where rejectsClientCertificate(reason):
            return "the server rejected the client certificate presented"
        case "TLSV1_UNRECOGNIZED_NAME", "TLSV1_ALERT_UNRECOGNIZED_NAME":
            return "the server does not serve the host name sent (SNI)"
        case "TLSV1_ALERT_INTERNAL_ERROR":
            return "the server reported an internal error"
        case "NO_RENEGOTIATION":
            return "the server asked to renegotiate TLS again on this connection (one renegotiation per connection is allowed, for a client certificate asked for late)"
        case "SERVER_CERT_CHANGED":
            return "the server presented another certificate when renegotiating TLS, which is refused (the certificate trusted at the handshake may not change)"
        case "TLSV1_ALERT_DECRYPT_ERROR":
            return "the server could not verify a signature or a message of the handshake"
        case "CERTIFICATE_VERIFY_FAILED":
            return "the server's certificate was not accepted"
        default:
            return "the TLS handshake failed"
        }
    }
}
